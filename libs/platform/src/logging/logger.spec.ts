import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import pino from 'pino';
import { ConfigError, type LogFormat } from '../config/env';
import { createLogger, logFormatFromEnv, logList, MAX_LOG_LINE_BYTES, type LogDestination } from './logger';

/** A destination that keeps what the logger wrote, one entry per write (one line / one record). */
function capture(): LogDestination & { lines: string[] } {
  const lines: string[] = [];
  return { lines, write: (s: string) => void lines.push(s) };
}

function logTo(format: LogFormat = 'json', level = 'info') {
  const out = capture();
  return { log: createLogger('spec', level, out, format), lines: out.lines };
}

const bytes = (s: string) => Buffer.byteLength(s);
const only = (lines: string[]) => {
  expect(lines).toHaveLength(1);
  return lines[0];
};

describe('createLogger: every line stays under 4 KB', () => {
  it('an array of 50,000 items: the first few and how many there were', () => {
    const { log, lines } = logTo();
    const signatures = Array.from({ length: 50_000 }, (_, i) => `sig${i}`.padEnd(88, 'x'));
    log.warn({ late: signatures }, 'transactions listed late');
    const line = only(lines);
    expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    const parsed = JSON.parse(line);
    expect(parsed.msg).toBe('transactions listed late');
    expect(parsed.late.slice(0, 3)).toEqual(signatures.slice(0, 3));
    expect(parsed.late.at(-1)).toMatch(/49990 more \(50000 items in all\)/);
    expect(parsed.truncated).toBeUndefined(); // bounded by the formatter, not replaced by the guard
  });

  it('arrays nested in objects and arrays of objects are bounded too', () => {
    const { log, lines } = logTo();
    log.warn(
      { gaps: Array.from({ length: 5000 }, (_, i) => ({ signature: `s${i}`, error: 'e'.repeat(50), tags: Array.from({ length: 100 }, (_, k) => k) })) },
      'gaps',
    );
    const parsed = JSON.parse(only(lines));
    expect(bytes(lines[0])).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(JSON.stringify(parsed)).toContain('5000 items in all');
  });

  it('a 1 MB string field is clipped, saying how much was left out', () => {
    const { log, lines } = logTo();
    log.error({ body: 'y'.repeat(1_000_000), status: 502 }, 'upstream answered');
    const line = only(lines);
    expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    const parsed = JSON.parse(line);
    expect(parsed.status).toBe(502);
    expect(parsed.body).toMatch(/^y+… \(\+\d+ chars\)$/);
  });

  it('an Error with a 100 KB message keeps its type, a clipped message and stack', () => {
    class UpstreamError extends Error {}
    const err = new UpstreamError(`bad gateway: ${'z'.repeat(100_000)}`);
    for (const call of [(l: pino.Logger) => l.error({ err }, 'request failed'), (l: pino.Logger) => l.error(err), (l: pino.Logger) => l.error({ err })]) {
      const { log, lines } = logTo();
      call(log);
      const line = only(lines);
      expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
      const parsed = JSON.parse(line);
      expect(parsed.err.type).toBe('UpstreamError');
      expect(parsed.err.message).toMatch(/^bad gateway: z+… \(\+\d+ chars\)$/);
      expect(parsed.err.stack).toMatch(/^Error: bad gateway: z+… \(\+\d+ chars\)\n/); // the header (the message again) clipped
      expect(parsed.err.stack).toMatch(/\n\s+at /); // the frames are kept
      expect(parsed.truncated).toBeUndefined();
    }
  });

  it('a huge message, a huge error cause and many keys are bounded', () => {
    const { log, lines } = logTo();
    log.warn('m'.repeat(200_000));
    log.error({ err: new Error('outer', { cause: new Error('c'.repeat(300_000)) }) }, 'with a cause');
    log.info(Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i])), 'many keys');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(JSON.parse(lines[0]).msg).toMatch(/^m+… \(\+\d+ chars\)$/);
    expect(JSON.parse(lines[1]).err.type).toBe('Error');
    expect(JSON.parse(lines[2])['…']).toBe('19960 more keys (20000 in all)');
  });

  it('a line still over the limit (here: a huge child binding) is replaced by a short valid line that says so', () => {
    const { log, lines } = logTo();
    const child = log
      .child({ component: 'indexer', cluster: 'devnet' })
      .child(Object.fromEntries(Array.from({ length: 39 }, (_, i) => [`b${i}`, 'v'.repeat(1000)])));
    child.warn({ n: 3 }, 'still too long');
    const line = only(lines);
    expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ level: 40, name: 'spec', msg: 'still too long', truncated: true, component: 'indexer', cluster: 'devnet', n: 3 });
    expect(parsed.originalBytes).toBeGreaterThan(MAX_LOG_LINE_BYTES);
    expect(typeof parsed.time).toBe('number');
  });

  it('an ordinary line is exactly what plain pino writes', () => {
    const ours = capture();
    const plain = capture();
    const a = createLogger('spec', 'debug', ours, 'json').child({ component: 'indexer', cluster: 'devnet' });
    const b = pino({ name: 'spec', level: 'debug', base: { pid: process.pid } }, plain).child({ component: 'indexer', cluster: 'devnet' });
    const err = new Error('connection refused');
    const at = new Date(0);
    for (const l of [a, b]) {
      l.info({ slot: 123, pools: ['p1', 'p2'], nested: { a: [1, 2, 3], at }, ok: true, none: null }, 'pools discovered');
      l.warn({ err, retryInMs: 500 }, 'indexing cycle failed; retrying from the cursor');
      l.error(err);
      l.debug('plain %s message', 'interpolated');
    }
    const withoutTime = (lines: string[]) => lines.map((l) => l.replace(/"time":\d+,/, ''));
    expect(withoutTime(ours.lines)).toEqual(withoutTime(plain.lines));
    expect(ours.lines).toHaveLength(4);
  });

  it('never throws at its caller, and bounds binary data', () => {
    const { log, lines } = logTo();
    const odd = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('unreadable');
      },
    });
    expect(() => log.warn({ odd }, 'odd')).not.toThrow();
    log.info({ bytes: new Uint8Array(1_000_000), buffer: Buffer.alloc(1_000_000) }, 'binary');
    for (const line of lines) expect(bytes(line)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(JSON.parse(lines.at(-1)!).bytes).toBe('[Uint8Array(1000000 bytes)]');
  });

  it('does not change the object the caller logged', () => {
    const { log } = logTo();
    const fields = { list: Array.from({ length: 100 }, (_, i) => i), text: 'x'.repeat(5000) };
    log.info(fields, 'x');
    expect(fields.list).toHaveLength(100);
    expect(fields.text).toHaveLength(5000);
  });

  it('logList: a count and the first few', () => {
    expect(logList(['a', 'b', 'c', 'd', 'e', 'f', 'g'])).toEqual({ count: 7, first: ['a', 'b', 'c', 'd', 'e'] });
    expect(logList([1, 2], 5)).toEqual({ count: 2, first: [1, 2] });
  });
});

describe('createLogger: LOG_FORMAT', () => {
  it('json writes one JSON object per line', () => {
    const { log, lines } = logTo('json');
    log.info({ slot: 7 }, 'hello');
    expect(JSON.parse(only(lines))).toMatchObject({ level: 30, name: 'spec', msg: 'hello', slot: 7 });
  });

  it('pretty writes human-readable text (no JSON), without pid and hostname', () => {
    const { log, lines } = logTo('pretty');
    log.info({ slot: 7 }, 'hello');
    const text = only(lines);
    expect(text.startsWith('{')).toBe(false);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(spec\): hello\n\s+slot: 7\n$/);
    expect(text).not.toContain('pid');
  });

  it('pretty output is bounded as well', () => {
    const { log, lines } = logTo('pretty');
    log.warn({ late: Array.from({ length: 50_000 }, (_, i) => `sig${i}`.padEnd(88, 'x')), body: 'b'.repeat(1_000_000) }, 'late');
    log.error({ err: new Error('e'.repeat(100_000)) }, 'failed');
    expect(lines).toHaveLength(2);
    for (const text of lines) expect(bytes(text)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
    expect(lines[0]).toContain('50000 items in all');
  });

  it('auto: JSON unless the destination is a terminal', () => {
    const out = capture();
    createLogger('spec', 'info', out, 'auto').info('hi');
    expect(JSON.parse(only(out.lines)).msg).toBe('hi');
    const tty = Object.assign(capture(), { isTTY: true });
    createLogger('spec', 'info', tty, 'auto').info('hi');
    expect(only(tty.lines)).toMatch(/INFO \(spec\): hi/);
  });

  it('reads LOG_FORMAT; an unknown value fails clearly', () => {
    expect(logFormatFromEnv({})).toBe('auto');
    expect(logFormatFromEnv({ LOG_FORMAT: '' })).toBe('auto');
    expect(logFormatFromEnv({ LOG_FORMAT: 'pretty' })).toBe('pretty');
    expect(() => logFormatFromEnv({ LOG_FORMAT: 'fancy' })).toThrow(ConfigError);
    expect(() => logFormatFromEnv({ LOG_FORMAT: 'fancy' })).toThrow('invalid configuration: LOG_FORMAT: must be one of json, pretty, auto');
  });
});

describe('createLogger: secrets never logged', () => {
  const RPC = 'https://rpc.example/?api-key=SEKRET-123';
  const DB = 'postgres://hadron:PG-PASSWORD@db.internal:5432/hadron';

  it('in fields, child bindings, the message, interpolated values, errors (message, stack, cause) and error-only calls', () => {
    const { log, lines } = logTo('json', 'debug');
    const child = log.child({ component: 'indexer', rpc: RPC });
    child.info({ cluster: 'devnet', rpc: RPC, nested: { db: DB, list: [RPC] } }, `indexing ${RPC}`);
    child.debug('connecting to %s', DB);
    const err = new Error(`HTTP 429 from ${RPC}`, { cause: new Error(`connect failed: ${DB}`) });
    child.warn({ err }, 'RPC calls failing');
    child.error(err);
    child.error({ err });
    child.warn({ err: err.message }, 'as a string');
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      expect(line).not.toContain('SEKRET-123');
      expect(line).not.toContain('PG-PASSWORD');
    }
    const first = JSON.parse(lines[0]);
    expect(first).toMatchObject({
      rpc: 'https://rpc.example/?api-key=***',
      msg: 'indexing https://rpc.example/?api-key=***',
      nested: { db: 'postgres://hadron:***@db.internal:5432/hadron', list: ['https://rpc.example/?api-key=***'] },
    });
    expect(JSON.parse(lines[1]).msg).toBe('connecting to postgres://hadron:***@db.internal:5432/hadron');
    const warned = JSON.parse(lines[2]);
    expect(warned.err.message).toContain('HTTP 429 from https://rpc.example/?api-key=***');
    expect(warned.err.stack).toMatch(/\n\s+at /); // the frames are kept
    expect(JSON.parse(lines[3]).msg).toBe('HTTP 429 from https://rpc.example/?api-key=***');
  });

  it('fields named like credentials are masked whatever they hold, at any depth', () => {
    const { log, lines } = logTo();
    log.info({ headers: { Authorization: 'Bearer abc', 'x-api-key': 'k', cookie: 'a=b', accept: '*/*' }, password: 'hunter2', apiKey: 'AK' }, 'request');
    const parsed = JSON.parse(only(lines));
    expect(parsed.headers).toEqual({ Authorization: '***', 'x-api-key': '***', cookie: '***', accept: '*/*' });
    expect(parsed.password).toBe('***');
    expect(parsed.apiKey).toBe('***');
  });

  it('pretty output is redacted as well', () => {
    const { log, lines } = logTo('pretty');
    log.child({ rpc: RPC }).warn({ err: new Error(`HTTP 500 from ${RPC}`) }, `failing: ${DB}`);
    const text = only(lines);
    expect(text).toContain('api-key=***');
    expect(text).not.toContain('SEKRET-123');
    expect(text).not.toContain('PG-PASSWORD');
  });

  it('a secret in a field too long for a line is still masked (redacted before it is clipped)', () => {
    const { log, lines } = logTo();
    log.warn({ body: `${'y'.repeat(1020)}https://u:LONG-PASSWORD@h/` }, 'long');
    expect(only(lines)).not.toContain('LONG-PASS');
  });
});

describe('createLogger: one process, one stdout', () => {
  /**
   * A real process as the deployables run: stdout a pipe, several loggers (runProcess's own and
   * the app's), lines from both in turn, then process.exit right after the last — as
   * "api: drained" then "api: stopped cleanly". What reaches the pipe must be every line, in the
   * order they were logged.
   */
  const child = `
    const { createLogger } = require('./libs/platform/src/logging/logger');
    const app = createLogger('app');
    const outer = () => createLogger('outer');
    for (let i = 0; i < 400; i++) (i % 3 === 0 ? outer() : app).info({ seq: i }, 'line ' + i + ' ' + 'x'.repeat(i % 7 === 0 ? 2000 : 40));
    outer().info({ seq: 400 }, 'stopped cleanly');
    process.exit(0);
  `;

  it.each(['json', 'pretty'])(
    'LOG_FORMAT=%s: every line of every logger, in the order logged, the last one before exit included',
    async (format) => {
      const root = resolve(__dirname, '../../../..');
      const proc = spawn(process.execPath, ['-r', './scripts/register-ts.js', '-e', child], {
        cwd: root,
        env: { ...process.env, LOG_FORMAT: format, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      proc.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      proc.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
      expect(err).toBe('');
      expect(code).toBe(0);
      const seqs = out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => (format === 'json' ? (JSON.parse(l) as { seq: number }).seq : Number(/seq: (\d+)/.exec(l)?.[1] ?? NaN)))
        .filter((n) => !Number.isNaN(n));
      expect(seqs).toEqual(Array.from({ length: 401 }, (_, i) => i));
    },
    60_000,
  );
});
