import fc from 'fast-check';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { inLines, sampleLine, samplesOfText, type SampleRow } from './get-midprice-history.handler';

/**
 * The history queries return their samples as lines written by Postgres (sampleLine), joined into
 * one value (inLines); the API reads them back (samplesOfText) and writes each signature to the
 * body as Postgres wrote it. The lines here are Postgres's own output of the same columns the read
 * views have (int8, numeric(20,0), text), so the check does not share the parser's idea of how
 * Postgres writes them; and each signature must be exactly what JSON.stringify writes for it.
 */
describe('midprice samples as lines of text, through Postgres and back', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE samples (
      n int PRIMARY KEY, ts bigint NOT NULL, slot bigint NOT NULL, signature text,
      midprice_q32 numeric(20,0), spread_factor_q32 numeric(20,0))`);
  });
  afterAll(() => db?.drop());

  const int8 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String);
  const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String);
  // Any text Postgres can hold (no NUL), spaces and line breaks included, and the empty signature (not a null).
  const text = fc.oneof(
    fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')),
    fc.constantFrom('', ' ', '=', ' = ', 'a b', '\n', 'a\r\nb', '5KtPn1LGuxhFiwjxErkxTb7XxtLVYUBe6Cn33ej7ATNN'),
    // What JSON escapes: quote, backslash, every control character; and what it does not (DEL, U+2028, astral).
    fc.array(fc.constantFrom('"', '\\', '\t', '\b', '\f', '\u0001', '\u001f', '\u007f', '\u2028', 'é', '😀', 'x'), { maxLength: 12 }).map((cs) => cs.join('')),
  );
  const sample = fc.tuple(int8, int8, fc.option(text), fc.option(u64), fc.option(u64));

  it('reads back every field exactly: u64 amounts, negative and large int8, nulls, any signature (as JSON.stringify writes it)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sample, { minLength: 1, maxLength: 40 }), async (rows) => {
        await db.pool.query('TRUNCATE samples');
        await db.pool.query(
          `INSERT INTO samples (n, ts, slot, signature, midprice_q32, spread_factor_q32)
           SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::text[], $5::numeric[], $6::numeric[])`,
          [rows.map((_, i) => i), rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => r[4])],
        );
        const { rows: value } = await db.pool.query<[string | null]>({ text: inLines(`SELECT ${sampleLine('ts')} FROM samples ORDER BY n`), rowMode: 'array' });
        const expected: SampleRow[] = rows.map(([ts, slot, signature, mid, spread]) => [ts, slot, JSON.stringify(signature), mid, spread]);
        expect(samplesOfText(value[0][0])).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('no rows: no samples', async () => {
    await db.pool.query('TRUNCATE samples');
    const { rows: value } = await db.pool.query<[string | null]>({ text: inLines(`SELECT ${sampleLine('ts')} FROM samples ORDER BY n`), rowMode: 'array' });
    expect(samplesOfText(value[0][0])).toEqual([]);
  });
});
