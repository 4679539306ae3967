import fc from 'fast-check';
import { TIMEFRAME_SECONDS, type SampledTimeframe } from '@hadron/contracts/api';
import { planSampled, type Range } from './midprice-plan';

const M = 60;
const H = 3600;

describe('planSampled', () => {
  it('1h+: whole hours, whole 5 minutes and minutes at the edges, raw partial minutes', () => {
    // [10:00:30, 13:02:10] → raw 10:00:30–10:01, minutes 10:01–10:05, 5 minutes 10:05–11:00, hours 11–13,
    // minutes 13:00–13:02, raw 13:02:00–13:02:11
    const p = planSampled('1h', 10 * H + 30, 13 * H + 130);
    expect(p.size).toBe(H);
    expect(p.hours).toEqual({ from: 11 * H, to: 13 * H });
    expect(p.fiveMinutes).toEqual([
      { from: 10 * H + 5 * M, to: 11 * H },
      { from: 0, to: 0 },
    ]);
    expect(p.minutes).toEqual([
      { from: 10 * H + M, to: 10 * H + 5 * M },
      { from: 13 * H, to: 13 * H + 2 * M },
    ]);
    expect(p.raw).toEqual([
      { from: 10 * H + 30, to: 10 * H + M },
      { from: 13 * H + 2 * M, to: 13 * H + 131 },
    ]);
  });

  it('5m and 30m: whole 5 minutes, minutes and raw at the edges; whole hours (their stored items) in the middle', () => {
    const p = planSampled('30m', 90, 2000);
    expect(p.hours).toEqual({ from: 0, to: 0 });
    expect(p.fiveMinutes[0]).toEqual({ from: 300, to: 1800 });
    expect(p.minutes).toEqual([
      { from: 120, to: 300 },
      { from: 1800, to: 1980 },
    ]);
    expect(p.raw).toEqual([
      { from: 90, to: 120 },
      { from: 1980, to: 2001 },
    ]);
    // [10:00:30, 13:02:10] in 5m: the hours 11–13 whole, as for 1h
    const day = planSampled('5m', 10 * H + 30, 13 * H + 130);
    expect(day.size).toBe(5 * M);
    expect(day.hours).toEqual({ from: 11 * H, to: 13 * H });
    expect(day.fiveMinutes[0]).toEqual({ from: 10 * H + 5 * M, to: 11 * H });
  });

  it('1m: minutes only; a window shorter than 5 minutes: minutes and raw', () => {
    const oneMinute = planSampled('1m', 90, 4000);
    expect([oneMinute.hours, ...oneMinute.fiveMinutes]).toEqual([
      { from: 0, to: 0 },
      { from: 0, to: 0 },
      { from: 0, to: 0 },
    ]);
    expect(oneMinute.minutes[0]).toEqual({ from: 120, to: 3960 });
    const short = planSampled('5m', 90, 400);
    expect(short.fiveMinutes[0]).toEqual({ from: 0, to: 0 });
    expect(short.minutes[0]).toEqual({ from: 120, to: 360 });
  });

  it('any window and timeframe: the ranges tile [start, end + 1) exactly, each aligned to its level, each holding whole buckets', () => {
    const timeframes = Object.keys(TIMEFRAME_SECONDS) as SampledTimeframe[];
    fc.assert(
      fc.property(fc.constantFrom(...timeframes), fc.integer({ min: 0, max: 4e9 }), fc.integer({ min: 0, max: 3 * 86_400 }), (tf, start, length) => {
        const end = start + length;
        const p = planSampled(tf, start, end);
        const levels: Array<[number, Range[]]> = [
          [H, [p.hours]],
          [5 * M, p.fiveMinutes],
          [M, p.minutes],
          [1, p.raw],
        ];
        const pieces = levels.flatMap(([size, rs]) => rs.filter((r) => r.to > r.from).map((r) => ({ ...r, size })));
        for (const r of pieces) {
          expect(r.from % r.size).toBe(0);
          expect(r.to % r.size).toBe(0);
          // A run's rows never straddle two buckets; whole hours of 5m and 30m hold whole buckets (their items).
          expect(r.size === H && p.size < H ? H % p.size : p.size % r.size).toBe(0);
          if (r.size === H) expect(p.size % (5 * M)).toBe(0); // 1m reads no hour
        }
        pieces.sort((a, b) => a.from - b.from);
        let at = start;
        for (const r of pieces) {
          expect(r.from).toBe(at);
          at = r.to;
        }
        expect(at).toBe(end + 1);
      }),
      { numRuns: 2000 },
    );
  });
});
