import { bucketCeil, bucketCount, bucketStart, coverWindow, DAY, HOUR, MINUTE } from './buckets';
import { chainPosition, compareChainPositions, POSITION_END } from './chain-position';

describe('time buckets', () => {
  it('aligns to Unix-epoch multiples, also before 1970', () => {
    expect(bucketStart(1_763_800_123, MINUTE)).toBe(1_763_800_080);
    expect(bucketStart(1_763_800_123, HOUR)).toBe(1_763_798_400);
    expect(bucketStart(1_763_800_123, DAY)).toBe(1_763_769_600); // 2025-11-22T00:00:00Z
    expect(bucketStart(-1, MINUTE)).toBe(-60);
    expect(bucketCeil(61, MINUTE)).toBe(120);
    expect(bucketCeil(120, MINUTE)).toBe(120);
  });

  it('covers a window with whole hours, whole minutes, and raw seconds only at the edges', () => {
    expect(coverWindow(1000, 10_000, [HOUR, MINUTE])).toEqual({
      runs: [
        { size: 60, from: 1020, to: 3600 },
        { size: 3600, from: 3600, to: 7200 },
        { size: 60, from: 7200, to: 9960 },
      ],
      raw: [
        { from: 1000, to: 1020 },
        { from: 9960, to: 10_000 },
      ],
    });
  });

  it('uses no bucket when the window is inside one, and no raw part when it is aligned', () => {
    expect(coverWindow(3610, 3650, [HOUR, MINUTE])).toEqual({ runs: [], raw: [{ from: 3610, to: 3650 }] });
    expect(coverWindow(0, 2 * DAY, [HOUR])).toEqual({ runs: [{ size: HOUR, from: 0, to: 2 * DAY }], raw: [] });
    expect(coverWindow(5, 5, [HOUR])).toEqual({ runs: [], raw: [] });
    expect(() => coverWindow(0, 1, [MINUTE, HOUR])).toThrow(/must decrease/);
  });
});

describe('chain position', () => {
  it('orders instructions within a slot and puts account snapshots at the end of the slot', () => {
    const ix = chainPosition({ slot: 10, txIndex: 3, ixIndex: 1, innerIndex: null });
    const inner = chainPosition({ slot: 10, txIndex: 3, ixIndex: 1, innerIndex: 0 });
    const txLevel = chainPosition({ slot: 10, txIndex: 3, ixIndex: null, innerIndex: null });
    const account = chainPosition({ slot: 10, txIndex: null, ixIndex: null, innerIndex: null });
    const next = chainPosition({ slot: 11, txIndex: 0, ixIndex: 0, innerIndex: null });
    const sorted = [next, account, txLevel, inner, ix].sort(compareChainPositions);
    expect(sorted).toEqual([ix, inner, txLevel, account, next]);
    expect(account).toEqual({ slot: 10, txIndex: POSITION_END, ixIndex: POSITION_END, innerIndex: POSITION_END });
  });

  it('counts the buckets a range touches', () => {
    expect(bucketCount(3600, 0, 3599)).toBe(1);
    expect(bucketCount(3600, 3599, 3600)).toBe(2);
    expect(bucketCount(60, 0, 86_400)).toBe(1441);
  });
});
