import { createLogger } from './logger';
import { everyWarningRepeats, RepeatedEntries, RepeatedWarnings, type Repeated } from './repeats';

/** A throttle on a clock the test moves, and what it wrote and reported. */
function setup(windowMs = 30_000) {
  let now = 1_000_000;
  const written: string[] = [];
  const reports: Repeated<string>[] = [];
  const repeats = new RepeatedEntries<string>(
    (r) => reports.push(r),
    windowMs,
    () => now,
  );
  const entry = (key: string) => {
    if (repeats.admit(key, key)) written.push(key);
  };
  return { repeats, written, reports, entry, advance: (ms: number) => void (now += ms) };
}

describe('RepeatedEntries: a repeated log entry is written once per window, then counted', () => {
  it('an entry 10 times a second for 95 s: written once, then one count per 30 s, and a last count when it stops', () => {
    const { repeats, written, reports, entry, advance } = setup();
    for (let i = 0; i < 950; i++) {
      entry('broker down');
      advance(100);
    }
    expect(written).toEqual(['broker down']);
    expect(reports.map((r) => r.repeated)).toEqual([299, 300, 300]);
    expect(reports.every((r) => r.overMs === 30_000)).toBe(true);
    repeats.flush(true);
    // Nothing lost: every entry was written or counted.
    expect(written.length + reports.reduce((n, r) => n + r.repeated, 0)).toBe(950);
    expect(reports.at(-1)).toMatchObject({ repeated: 50, overMs: 5_000 });
  });

  it('a window that ends without repeats reports nothing, and the next entry is written again', () => {
    const { repeats, written, reports, entry, advance } = setup();
    entry('leader moving');
    advance(31_000);
    repeats.flush();
    entry('leader moving');
    expect(written).toEqual(['leader moving', 'leader moving']);
    expect(reports).toEqual([]);
  });

  it('kinds are counted apart: another entry is written at once', () => {
    const { repeats, written, reports, entry } = setup();
    for (const key of ['a', 'b', 'a', 'a', 'b', 'c']) entry(key);
    expect(written).toEqual(['a', 'b', 'c']);
    repeats.flush(true);
    expect(reports.map((r) => [r.entry, r.repeated])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
  });

  it('past 100 kinds at once, a new kind is written every time rather than tracked', () => {
    const { written, entry } = setup();
    for (let i = 0; i < 100; i++) entry(`kind ${i}`);
    entry('one more');
    entry('one more');
    expect(written.filter((k) => k === 'one more')).toHaveLength(2);
  });
});

describe('everyWarningRepeats: a periodic task failing while a dependency is down', () => {
  afterEach(() => jest.useRealTimers());

  /** A task every 2 s that fails from 10 s to 100 s (the database down), logged at `level`. */
  async function outage(level: string) {
    jest.useFakeTimers({ now: 0 });
    const lines: { level: number; msg: string; err?: string; repeated?: number }[] = [];
    const log = createLogger('spec', level, { write: (l: string) => void lines.push(JSON.parse(l)) }, 'json');
    const timer = everyWarningRepeats(
      2000,
      async () => {
        const t = Date.now();
        if (t > 10_000 && t <= 100_000) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
      log,
      'could not publish status',
    );
    for (let t = 0; t < 120_000; t += 2000) await jest.advanceTimersByTimeAsync(2000);
    clearInterval(timer);
    return lines;
  }

  it('warns once, then once per 30 s with the count, and the first success after reports the rest', async () => {
    const lines = await outage('info');
    // 45 failures (12 s … 100 s): the first written (12 s); the next ones counted until the window
    // ends (14 … 40 s: 14), each count opening the next window (42 … 70 s, 72 … 100 s: 15 each);
    // the success at 102 s reports the last. 1 + 14 + 15 + 15 = 45, in 4 lines instead of 45.
    expect(lines.map((l) => [l.msg, l.repeated])).toEqual([
      ['could not publish status', undefined],
      ['could not publish status (repeated 14 times in 30 s)', 14],
      ['could not publish status (repeated 15 times in 30 s)', 15],
      ['could not publish status (repeated 15 times in 30 s)', 15],
    ]);
    expect(lines.every((l) => l.level === 40 && l.err === 'connect ECONNREFUSED 127.0.0.1:5432')).toBe(true);
  });

  it('at debug level every failure is written', async () => {
    const lines = await outage('debug');
    expect(lines).toHaveLength(45);
    expect(lines.every((l) => l.msg === 'could not publish status')).toBe(true);
  });
});

describe('RepeatedWarnings: kinds', () => {
  it('another error of the same task is another kind: written at once', () => {
    const lines: { msg: string; err: string }[] = [];
    const w = new RepeatedWarnings(createLogger('spec', 'info', { write: (l: string) => void lines.push(JSON.parse(l)) }, 'json'));
    for (const err of ['ECONNREFUSED', 'ECONNREFUSED', 'the database system is starting up', 'ECONNREFUSED']) w.warn({ err }, 'poll failed');
    expect(lines.map((l) => l.err)).toEqual(['ECONNREFUSED', 'the database system is starting up']);
    w.recovered();
    expect(lines.slice(2).map((l) => [l.err, l.msg])).toEqual([['ECONNREFUSED', 'poll failed (repeated 2 times in 0 s)']]);
  });
});
