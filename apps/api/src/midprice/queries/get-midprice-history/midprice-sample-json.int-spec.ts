import bs58 from 'bs58';
import fc from 'fast-check';
import {
  BASE58_PATTERN_SQL,
  q32Json,
  q32JsonSql,
  quotedBase58,
  sampleJsonOfNumbersSql,
  sampleJsonRestSql,
  sampleJsonSql,
  toJsonText,
} from '@hadron/contracts/read/midprice-sample-json';
import { Pool } from 'pg';
import { createPool, endPool } from '@hadron/platform/database/pool';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { toJson } from '../../../http/json';

const Q32 = 4_294_967_296;

/** A u64 of any size (as many small as large: the small ones are where Postgres and JavaScript format differently). */
const u64 = fc
  .integer({ min: 0, max: 64 })
  .chain((bits) => fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) - 1n }))
  .map(String);
const EDGES = ['0', '1', '2', '429496', '429497', '4294', '4295', '42949', '42950', '9007199254740993', '4294967296', String(2n ** 64n - 1n)];

/** Any text Postgres can hold (no NUL): what JSON escapes (quote, backslash, control characters) and what it does not (DEL, U+2028, astral). */
const text = fc.oneof(
  fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')),
  fc.constantFrom('', ' ', 'a\r\nb', '5KtPn1LGuxhFiwjxErkxTb7XxtLVYUBe6Cn33ej7ATNN'),
  fc
    .array(fc.constantFrom('"', '\\', '\t', '\b', '\f', '\n', '\u0001', '\u001f', '\u007f', '\u2028', 'é', '😀', 'x'), { maxLength: 12 })
    .map((cs) => cs.join('')),
);

/** A sample row's JSON as the API writes it: toJson of the sample object, the Q32 values as JavaScript divides them. */
const sampleAsWritten = (r: { ts: number; slot: number; signature: string | null; mid: string | null; spread: string | null }): string =>
  toJson({
    timestamp: r.ts,
    slot: r.slot,
    midprice: r.mid === null ? null : Number(r.mid) / Q32,
    base_spread_factor: r.spread === null ? null : Number(r.spread) / Q32,
    signature: r.signature,
  });

/**
 * The history bodies' samples are written by Postgres (midprice-sample-json.ts): in the API's
 * queries for the edges of a sampled window, stored by midprice v5 per last point, put together
 * from the numbers midprice v7 stores per point (a raw page), derived in an older build's views. Each must be exactly what toJson writes for the sample object, the Q32
 * values as JavaScript divides and writes them; the expected text here is JavaScript's own.
 */
describe('a midprice sample written by Postgres', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  async function q32Texts(pool: { query: TestDatabase['pool']['query'] }, qs: readonly string[]): Promise<string[]> {
    const { rows } = await pool.query<{ a: string[] }>(
      `SELECT array_agg(${q32JsonSql('q')} ORDER BY n) AS a FROM unnest($1::numeric(20,0)[]) WITH ORDINALITY AS u(q, n)`,
      [qs],
    );
    return rows[0].a;
  }

  it('a Q32 value is String(Number(q) / 2^32) for u64s of every size, 200,000 of them, the formats’ switch points included', async () => {
    const qs = [...EDGES, ...fc.sample(u64, { numRuns: 200_000, seed: 7 })];
    const texts = await q32Texts(db.pool, qs);
    const differing = qs.filter((q, i) => texts[i] !== String(Number(q) / Q32));
    expect(differing).toEqual([]);
    // Each way of writing is there: 10^-5 and 10^-6 (fixed in JavaScript, exponents in Postgres), 10^-7 … 10^-10 (both exponents).
    for (const form of [/^0\.0000[1-9]/, /^0\.00000[1-9]/, /e-[789]$/, /e-10$/, /^[1-9][0-9]*\.[0-9]+$/]) expect(texts.some((t) => form.test(t))).toBe(true);
  });

  it('the whole sample is toJson of the sample object, for any slot and timestamp below 2^53, amounts, nulls and signature', async () => {
    const row = fc.record({
      ts: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
      slot: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
      signature: fc.option(text),
      mid: fc.option(fc.oneof(u64, fc.constantFrom(...EDGES))),
      spread: fc.option(u64),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 40 }), async (rows) => {
        const { rows: out } = await db.pool.query<{ a: string[] }>(
          `SELECT array_agg(${sampleJsonSql('ts', sampleJsonRestSql(toJsonText))} ORDER BY n) AS a
             FROM unnest($1::int8[], $2::int8[], $3::text[], $4::numeric(20,0)[], $5::numeric(20,0)[]) WITH ORDINALITY
               AS u(ts, slot, signature, midprice_q32, spread_factor_q32, n)`,
          [rows.map((r) => r.ts), rows.map((r) => r.slot), rows.map((r) => r.signature), rows.map((r) => r.mid), rows.map((r) => r.spread)],
        );
        expect(out[0].a).toEqual(rows.map(sampleAsWritten));
      }),
      { numRuns: 60 },
    );
  });

  it('midprice v7: a point stores its numbers’ JSON (q32Json), the view quotes its base58 signature; the same sample; any other signature is refused', async () => {
    // The points table's columns and check as midprice v7 declares them (midprice.schema.ts), the
    // numbers written as its projector writes them (q32Json), the signatures encoded by bs58.
    await db.pool.query(`CREATE TABLE v7_points (n int PRIMARY KEY, ts int8 NOT NULL, slot int8 NOT NULL, signature text,
      midprice_q32 numeric(20,0), spread_factor_q32 numeric(20,0), midprice_json text NOT NULL, spread_factor_json text NOT NULL,
      CHECK (signature ~ ${BASE58_PATTERN_SQL}))`);
    const row = fc.record({
      ts: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
      slot: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
      signature: fc.option(fc.uint8Array({ minLength: 64, maxLength: 64 }).map((b) => bs58.encode(b))),
      mid: fc.option(fc.oneof(u64, fc.constantFrom(...EDGES))),
      spread: fc.option(u64),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 40 }), async (rows) => {
        await db.pool.query('TRUNCATE v7_points');
        await db.pool.query(
          `INSERT INTO v7_points (n, ts, slot, signature, midprice_q32, spread_factor_q32, midprice_json, spread_factor_json)
           SELECT * FROM unnest($1::int[], $2::int8[], $3::int8[], $4::text[], $5::numeric(20,0)[], $6::numeric(20,0)[], $7::text[], $8::text[])`,
          [
            rows.map((_, i) => i),
            rows.map((r) => r.ts),
            rows.map((r) => r.slot),
            rows.map((r) => r.signature),
            rows.map((r) => r.mid),
            rows.map((r) => r.spread),
            rows.map((r) => q32Json(r.mid)),
            rows.map((r) => q32Json(r.spread)),
          ],
        );
        const { rows: out } = await db.pool.query<{ a: string[] }>(
          `SELECT array_agg(${sampleJsonSql('ts', sampleJsonOfNumbersSql('midprice_json', 'spread_factor_json', quotedBase58))} ORDER BY n) AS a FROM v7_points`,
        );
        expect(out[0].a).toEqual(rows.map(sampleAsWritten));
      }),
      { numRuns: 30 },
    );
    // What quoting could not write as JSON, and what is not base58 (0, O, I, l), never gets in.
    for (const signature of ['a"b', 'a\\b', 'a\nb', '', 'O0Il', '5KtPn1LGuxhFiwjxErkxTb7XxtLVYUBe6Cn33ej7ATN ']) {
      await expect(
        db.pool.query(`INSERT INTO v7_points (n, ts, slot, signature, midprice_json, spread_factor_json) VALUES (-1, 0, 0, $1, '1', 'null')`, [signature]),
      ).rejects.toThrow(/check constraint/);
    }
  });

  it('on a connection configured to round floats (extra_float_digits = 0), the pool still writes the exact shortest text', async () => {
    const url = new URL(db.url);
    url.searchParams.set('options', '-c extra_float_digits=0');
    const rounding = createPool(url.toString(), { max: 1 });
    try {
      const { rows } = await rounding.query<{ extra_float_digits: string }>('SHOW extra_float_digits');
      expect(rows[0].extra_float_digits).toBe('1');
      const qs = ['1', '3', '429497', '12345678901234567890'];
      expect(await q32Texts(rounding, qs)).toEqual(qs.map((q) => String(Number(q) / Q32)));
      const raw = new Pool({ connectionString: url.toString(), max: 1 }); // node-postgres alone: the server's setting as configured
      try {
        const { rows: plain } = await raw.query<{ t: string }>(`SELECT (3::float8 / ${Q32})::text AS t`);
        expect(plain[0].t).not.toBe(String(3 / Q32)); // the setting is what makes the difference
      } finally {
        await raw.end();
      }
    } finally {
      await endPool(rounding);
    }
  });
});
