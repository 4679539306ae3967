import fc from 'fast-check';
import { DAY, q32ToQuoteNumber } from '@hadron/domain';
import { intOf } from '../../../database/numeric';
import { SLICE, toJson } from '../../../http/json';
import { inDayOrder, quoteAmountJson, volumeHistoryJson, type VolumeRow } from './get-volume-history.handler';

/** What the endpoint wrote before buckets were written straight from rows: objects through toJson. */
function asObjects(envelope: object, firstDay: number, lastDay: number, rows: readonly VolumeRow[], decimalsY: number): string {
  const byDay = new Map(rows.map((r) => [Number(r[0]), r]));
  const days = Array.from({ length: (lastDay - firstDay) / DAY + 1 }, (_, i) => firstDay + i * DAY);
  const data = days.map((day) => {
    const r = byDay.get(day);
    return {
      timestamp: day,
      volume: r ? q32ToQuoteNumber(intOf(r[1]), decimalsY) : 0,
      fees: r ? q32ToQuoteNumber(intOf(r[2]), decimalsY) : 0,
    };
  });
  return toJson({ ...envelope, data });
}

const u128 = fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }).map(String);
/** Amounts as a numeric column's text: small to far beyond u64, with a `.000` tail, with a fraction. */
const amount = fc.oneof(
  fc.nat().map(String),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => `${n}.000`),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => `${n}.5`),
  u128,
  fc.bigInt({ min: 0n, max: 10n ** 300n }).map(String),
);

describe('volume history written straight from rows', () => {
  it('is exactly what toJson writes for the bucket objects (any amounts, decimals, gaps)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 200_000 }),
        fc.nat({ max: 60 }),
        fc.uniqueArray(fc.tuple(fc.nat({ max: 60 }), amount, amount), { selector: (r) => r[0], maxLength: 40 }),
        fc.nat({ max: 24 }),
        async (firstIndex, length, picked, decimalsY) => {
          const firstDay = firstIndex * DAY;
          const lastDay = firstDay + length * DAY;
          const rows = picked
            .filter(([i]) => i <= length)
            .sort((a, b) => a[0] - b[0])
            .map(([i, v, f]): VolumeRow => [String(firstDay + i * DAY), v, f]);
          const envelope = { start_time: firstDay + 5, end_time: lastDay + 7, timeframe: '24h' };
          expect(await volumeHistoryJson(envelope, firstDay, lastDay, rows, decimalsY)).toBe(asObjects(envelope, firstDay, lastDay, rows, decimalsY));
        },
      ),
    );
  });

  it('an amount is written as the exact path writes it, for any digits and decimals (fast path included)', () => {
    for (const [text, decimalsY] of [
      ['0', 6],
      ['1', 22],
      ['1', 23],
      ['999999999999999', 0],
      ['1000000000000000', 9],
      ['4294967296000000', 6],
      ['123456789012345', 255],
      ['18446744073709551615', 280],
      ['18446744073709551615', 281],
      ['18446744073709551615.000', 6],
      ['-4294967296', 3],
      ['-0', 2],
      [` ${'9'.repeat(298)}`, 0],
      ['9'.repeat(300), 0],
      ['9'.repeat(301), 0],
      ['1'.repeat(300), 280],
      ['9'.repeat(312), 0], // text / 10^decimals would overflow, the quotient does not
      ['123456789', 310], // subnormal: rounded twice but for the bound
      ['987654321987654321', 312],
      ['987654321987654321', 330],
    ] as const) {
      expect(quoteAmountJson(text, decimalsY)).toBe(toJson(q32ToQuoteNumber(intOf(text), decimalsY)));
    }
    expect(() => quoteAmountJson('NaN', 6)).toThrow(SyntaxError); // as the exact path: no numeric NaN in a sum
    fc.assert(
      fc.property(amount, fc.oneof(fc.nat({ max: 30 }), fc.nat({ max: 300 })), (text, decimalsY) =>
        expect(quoteAmountJson(text, decimalsY)).toBe(toJson(q32ToQuoteNumber(intOf(text), decimalsY))),
      ),
      { numRuns: 5000 },
    );
  });

  it('a range of more than one slice of the event loop, and numeric text with a fraction', async () => {
    const lastDay = (3 * SLICE + 5) * DAY;
    const rows: VolumeRow[] = [
      ['0', '4294967296000000', '42949672960'],
      [String(SLICE * DAY), '18446744073709551615.000', '1'],
      [String(lastDay), '5', '0'],
    ];
    const envelope = { start_time: 0, end_time: lastDay, timeframe: '24h' };
    expect(await volumeHistoryJson(envelope, 0, lastDay, rows, 6)).toBe(asObjects(envelope, 0, lastDay, rows, 6));
  });

  it('rows of a shared round trip, in whatever order they come, are put in day order', () => {
    const row = (d: number): VolumeRow => [String(d), String(d * 7 + 1), String(d + 3)];
    // Distinct days in the order generated (any order), and the same days ascending.
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 400 }), { maxLength: 60 }), (days) => {
        const ascending = [...days].sort((a, b) => a - b).map((d) => row(d * DAY));
        expect(inDayOrder(days.map((d) => row(d * DAY)))).toEqual(ascending);
      }),
      { numRuns: 500 },
    );
    // Rows already in order are returned as they are (no copy, no sort).
    const rows: VolumeRow[] = [
      ['0', '1', '1'],
      [String(DAY), '2', '2'],
      [String(10 * DAY), '3', '3'],
    ];
    expect(inDayOrder(rows)).toBe(rows);
    // Day order is numeric, not textual ('86400' < '172800' as numbers, not as text).
    expect(
      inDayOrder([
        [String(2 * DAY), '1', '1'],
        [String(DAY), '2', '2'],
      ]).map((r) => r[0]),
    ).toEqual([String(DAY), String(2 * DAY)]);
  });
});
