import { planFeeWindow } from './fee-window';

describe('planFeeWindow', () => {
  const H = 3600;
  const M = 60;
  const EMPTY = { from: 0, to: 0 };

  it('24h: whole hours, whole minutes beside them, the two partial minutes raw; end inclusive', () => {
    const end = 100 * H + 125; // 2 min 5 s into hour 100
    expect(planFeeWindow('24h', end)).toEqual({
      start: 76 * H + 125,
      end,
      hours: { from: 77 * H, to: 100 * H },
      minutes: [
        { from: 76 * H + 3 * M, to: 77 * H },
        { from: 100 * H, to: 100 * H + 2 * M },
      ],
      raw: [
        { from: 76 * H + 125, to: 76 * H + 3 * M },
        { from: 100 * H + 2 * M, to: end + 1 },
      ],
    });
  });

  it('1h not aligned: no whole hour; minutes across the hour boundary; two partial minutes raw', () => {
    const p = planFeeWindow('1h', 100 * H + 125);
    expect(p.hours).toEqual(EMPTY);
    expect(p.minutes).toEqual([{ from: 99 * H + 3 * M, to: 100 * H + 2 * M }, EMPTY]);
    expect(p.raw).toEqual([
      { from: 99 * H + 125, to: 99 * H + 3 * M },
      { from: 100 * H + 2 * M, to: 100 * H + 126 },
    ]);
  });

  it('a window starting on a minute: all whole minutes, the raw part is the last second', () => {
    const p = planFeeWindow('1h', 100 * H + 120);
    expect(p).toMatchObject({ start: 99 * H + 120, hours: EMPTY });
    expect(p.minutes).toEqual([{ from: 99 * H + 2 * M, to: 100 * H + 2 * M }, EMPTY]);
    expect(p.raw).toEqual([{ from: 100 * H + 120, to: 100 * H + 121 }, EMPTY]);
  });

  it('all starts at 0 (swaps without block time, ts 0, included)', () => {
    const p = planFeeWindow('all', 100 * H + 5);
    expect(p.start).toBe(0);
    expect(p.hours).toEqual({ from: 0, to: 100 * H });
    expect(p.minutes).toEqual([EMPTY, EMPTY]);
    expect(p.raw).toEqual([{ from: 100 * H, to: 100 * H + 6 }, EMPTY]);
  });
});
