import fc from 'fast-check';
import { jsonInt8, jsonString, jsonTextInSlices, jsonTextWithData, jsonTextWithItems, mapInSlices, SLICE, toJson, toJsonWithBigInts } from './json';

describe('toJson', () => {
  it('matches JSON.stringify for plain values', () => {
    const v = { a: 1, b: 'x"\n\u2028', c: [1, null, true, { d: -0.5 }], e: undefined, f: 1e21, g: 0.1, h: [undefined, NaN, Infinity] };
    expect(toJson(v)).toBe(JSON.stringify(v));
  });

  it('writes bigint with exact digits', () => {
    expect(toJson({ n: 18446744073709551615n, m: [-12n], z: 0n })).toBe('{"n":18446744073709551615,"m":[-12],"z":0}');
  });

  it('strings that look like the marker stay strings', () => {
    const tricky = { name: '\u0000n123', other: '\\u0000abc:5', nul: '\u0000' };
    expect(JSON.parse(toJson(tricky))).toEqual(tricky);
  });
});

describe('toJsonWithBigInts', () => {
  it('writes exactly what toJson writes, for any value', () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(anything, (v) => expect(toJsonWithBigInts(v)).toBe(toJson(v))),
      { numRuns: 2000 },
    );
  });

  it('a fees report with raw amounts as bigints', () => {
    const report = {
      interval: '24h',
      mint_x: null,
      totals: { volume_usd: 1463535.054547096, spread_usd: -0, protocol_fee_x_raw: 18446744073709551615n, protocol_fee_y_raw: 0n, swap_count: 632 },
      protocol_fee_split: [{ recipient: 'a"\u2028', ppm: 954266, fee_x_raw: 1539098.415026, fee_y_raw: '538763.315344' }],
      truncated: false,
      as_of: { slot: null, time: 1764000000, lag_seconds: undefined },
    };
    expect(toJsonWithBigInts(report)).toBe(toJson(report));
    expect(toJsonWithBigInts(report)).toContain('"protocol_fee_x_raw":18446744073709551615,');
  });
});

describe('the slice-by-slice writers', () => {
  it('jsonTextInSlices writes exactly what toJson writes, wherever data stands, for any length', async () => {
    for (const n of [0, 1, SLICE - 1, SLICE, SLICE + 1, 3 * SLICE + 7]) {
      const data = Array.from({ length: n }, (_, i) => ({
        timestamp: i * 60,
        volume: i % 3 ? 0 : i / 7,
        big: BigInt(i) * 18446744073709551n,
        s: i % 5 ? 'x' : '"\u0000',
      }));
      for (const value of [{ start_time: 1, data, next_cursor: null as number | null }, { data }]) expect(await jsonTextInSlices(value)).toBe(toJson(value));
    }
  });

  it('mapInSlices is map, and lets other work run between slices', async () => {
    const items = Array.from({ length: 3 * SLICE }, (_, i) => i);
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    expect(await mapInSlices(items, (i) => i * 2)).toEqual(items.map((i) => i * 2));
    expect(ranMeanwhile).toBe(true);
  });
});

describe('the item writers', () => {
  it('jsonTextWithData puts items already written where toJson writes data (none for null or empty), as jsonTextWithItems does', async () => {
    const envelopes = [{}, { start_time: 1, end_time: 2, timeframe: '5m' }, { cursor: 5, next_cursor: null }];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...envelopes), fc.array(fc.record({ a: fc.nat(), s: fc.string() })), async (envelope, items) => {
        const expected = toJson({ ...envelope, data: items });
        if (items.length === 0) for (const none of [null, '']) expect(jsonTextWithData(envelope, none)).toBe(expected);
        else expect(jsonTextWithData(envelope, items.map((i) => toJson(i)).join(','))).toBe(expected);
        expect(await jsonTextWithItems(envelope, items, (i) => toJson(i))).toBe(expected);
      }),
    );
  });

  it('jsonString writes what JSON.stringify writes, for any string (escapes, lone surrogates, pairs)', () => {
    for (const s of ['', 'Sig1111m1tttt', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'x\udc00', '\ud83d\ude00', 'é'])
      expect(jsonString(s)).toBe(JSON.stringify(s));
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => expect(jsonString(s)).toBe(JSON.stringify(s))),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), (s) =>
        expect(jsonString(s)).toBe(JSON.stringify(s)),
      ),
    );
    expect(jsonString(null)).toBe('null');
  });

  it('jsonInt8 writes what toJson writes for Number(v), for any int8 text (also beyond 2^53) or number', () => {
    for (const v of ['0', '-1', '999999999999999', '-99999999999999', '9007199254740993', '-9223372036854775808', '9223372036854775807', 1795697851, 0]) {
      expect(jsonInt8(v)).toBe(toJson(Number(v)));
    }
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => expect(jsonInt8(String(n))).toBe(toJson(Number(String(n))))),
      { numRuns: 2000 },
    );
  });
});
