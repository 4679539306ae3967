import fc from 'fast-check';
import { jsonTextWithItems, toJson } from '../../../http/json';
import { sampleJson, type SampleRow } from './get-midprice-history.handler';

const Q32 = 4_294_967_296;
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
/** Any int8 as Postgres writes it (also beyond 2^53, where Number rounds). */
const int8 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
const row = fc.tuple(
  fc.oneof(fc.nat({ max: 9_999_999_999 }), fc.nat({ max: 9_999_999_999 }).map(String), int8),
  fc.oneof(fc.nat(), fc.nat({ max: Number.MAX_SAFE_INTEGER }).map(String), int8),
  // The signature as its JSON value (as Postgres's to_json writes it; sample-line.int-spec.ts checks that it equals JSON.stringify).
  fc.option(fc.string({ unit: 'binary' })).map((s) => JSON.stringify(s)),
  fc.option(u64),
  // A spread factor often repeats from one sample to the next (sampleJson reuses its JSON then).
  fc.option(fc.oneof(u64, fc.constantFrom('4294705152', '4294967296', '0'))),
) as fc.Arbitrary<SampleRow>;

/** What the endpoint wrote before rows were rendered directly: the sample object through toJson. */
const asObject = (r: SampleRow) => ({
  timestamp: Number(r[0]),
  slot: Number(r[1]),
  midprice: r[3] === null ? null : Number(r[3]) / Q32,
  base_spread_factor: r[4] === null ? null : Number(r[4]) / Q32,
  signature: JSON.parse(r[2]) as string | null,
});

describe('a midprice sample written straight from its row', () => {
  it('is exactly what toJson writes for the sample object (any u64 values, any signature text, nulls)', () => {
    fc.assert(fc.property(row, (r) => expect(sampleJson(r)).toBe(toJson(asObject(r)))));
  });

  it('a whole body, also across slices of the event loop, equals toJson of the DTO', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 50 }), fc.option(fc.nat()), async (rows, cursor) => {
        const envelope = { start_time: 1, end_time: 2, timeframe: 'raw', next_cursor: cursor };
        expect(await jsonTextWithItems(envelope, rows, sampleJson)).toBe(toJson({ ...envelope, data: rows.map(asObject) }));
      }),
    );
    const many = Array.from({ length: 4500 }, (_, i): SampleRow => [i, i * 3, `"sig${i}"`, String(i * 1000), null]);
    expect(await jsonTextWithItems({ start_time: 0, end_time: 9, timeframe: '1m' }, many, sampleJson)).toBe(
      toJson({ start_time: 0, end_time: 9, timeframe: '1m', data: many.map(asObject) }),
    );
  });
});
