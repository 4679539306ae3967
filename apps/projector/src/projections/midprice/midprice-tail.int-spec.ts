import fc from 'fast-check';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { createBuildTables } from '../../builds/build-objects';
import { quoteIdent } from '../../sql/identifiers';
import {
  LAST_POINT_TABLES,
  midpriceSchemaV1Served,
  midpriceSchemaV3,
  midpriceSchemaV3Served,
  midpriceSchemaV4,
  midpriceSchemaV4Served,
  midpriceSchemaV5,
} from './midprice.schema';

/**
 * The read contract's `tail` of a last point: `<slot> <midprice_q32> <spread_factor_q32>
 * <signature>`, an empty field for a null number, the signature as JSON.stringify writes it. The
 * expected text is built here from the values themselves, not from the projector's SQL nor from
 * the API's parser: v4 stores it (a generated column), an older build's views derive it, and both
 * must write exactly that for any value a row can hold. Likewise v5's `sample_json`, the sample
 * as the API's body has it but the timestamp, expected as JavaScript writes it.
 */
describe("midprice last points' sample tail and JSON, stored (v4, v5) and derived (older builds served)", () => {
  let db: TestDatabase;
  const [V5, V4, V3, V1] = ['proj_midprice_tail_v5', 'proj_midprice_tail_v4', 'proj_midprice_tail_v3', 'proj_midprice_tail_v1'];
  beforeAll(async () => {
    db = await createTestDatabase();
    await createBuildTables(db.pool, midpriceSchemaV5, V5);
    await createBuildTables(db.pool, midpriceSchemaV4, V4);
    await createBuildTables(db.pool, midpriceSchemaV3, V3);
    await createBuildTables(db.pool, midpriceSchemaV1Served, V1);
  });
  afterAll(() => db?.drop());

  // A u64 of any size: as many small as large (below 10^-4 × 2^32 Postgres and JavaScript write a float differently).
  const u64 = fc
    .integer({ min: 0, max: 64 })
    .chain((bits) => fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) - 1n }))
    .map(String);
  // Any text Postgres can hold (no NUL), with what JSON escapes (quote, backslash, control
  // characters, line breaks) and what it does not (DEL, U+2028, astral), and a real signature.
  const text = fc.oneof(
    fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')),
    fc.constantFrom('', ' ', 'a\r\nb', '5KtPn1LGuxhFiwjxErkxTb7XxtLVYUBe6Cn33ej7ATNN'),
    fc
      .array(fc.constantFrom('"', '\\', '\t', '\b', '\f', '\n', '\u0001', '\u001f', '\u007f', '\u2028', 'é', '😀', 'x'), { maxLength: 12 })
      .map((cs) => cs.join('')),
  );
  const row = fc.record({
    slot: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
    signature: fc.option(text),
    mid: fc.option(u64),
    spread: fc.option(u64),
  });
  type Row = { slot: string; signature: string | null; mid: string | null; spread: string | null };
  const expectedTail = (r: Row) => `${r.slot} ${r.mid ?? ''} ${r.spread ?? ''} ${JSON.stringify(r.signature)}`;

  async function insert(schema: string, table: string, bucketCol: string, rows: readonly Row[]): Promise<void> {
    await db.pool.query(`TRUNCATE ${quoteIdent(schema)}.${table}`);
    await db.pool.query(
      `INSERT INTO ${quoteIdent(schema)}.${table} (cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32, point_id)
       SELECT 'mainnet-beta', 'P', n * 3600, n * 3600, slot, 0, 0, 0, signature, mid, spread, 'id' || n
         FROM unnest($1::int8[], $2::text[], $3::numeric[], $4::numeric[]) WITH ORDINALITY AS r(slot, signature, mid, spread, n)`,
      [rows.map((r) => r.slot), rows.map((r) => r.signature), rows.map((r) => r.mid), rows.map((r) => r.spread)],
    );
  }

  /** A column (`tail` by default) as a served shape's view of `table` reads it from `schema`, in row order. */
  async function tails(shape: typeof midpriceSchemaV4, schema: string, table: string, column = 'tail'): Promise<string[]> {
    const view = shape.views.find((v) => v.name === table)!;
    const { rows } = await db.pool.query<{ c: string }>(`SELECT ${column} AS c FROM (${view.select(quoteIdent(schema))}) v ORDER BY ts`);
    return rows.map((r) => r.c);
  }

  /**
   * The sample JSON but its opening timestamp, as the API's body has it: JSON.stringify of the
   * sample object, the Q32 values divided by 2^32 in JavaScript (slots below 2^53, as on chain).
   */
  const expectedSampleJson = (r: Row) =>
    JSON.stringify({
      timestamp: 0,
      slot: Number(r.slot),
      midprice: r.mid === null ? null : Number(r.mid) / 2 ** 32,
      base_spread_factor: r.spread === null ? null : Number(r.spread) / 2 ** 32,
      signature: r.signature,
    }).slice('{"timestamp":0'.length);

  it('v5 stores the sample JSON as each row is written, v4 and v3 served derive the same, for any amounts, nulls and signature', async () => {
    const jsonRow = row.map((r) => ({ ...r, slot: String(BigInt(r.slot) % 2n ** 53n) }));
    await fc.assert(
      fc.asyncProperty(fc.array(jsonRow, { minLength: 1, maxLength: 30 }), async (rows) => {
        for (const { table, bucketCol } of LAST_POINT_TABLES) {
          for (const schema of [V5, V4, V3]) await insert(schema, table, bucketCol, rows);
          const expected = rows.map(expectedSampleJson);
          expect(await tails(midpriceSchemaV5, V5, table, 'sample_json')).toEqual(expected);
          expect(await tails(midpriceSchemaV4Served, V4, table, 'sample_json')).toEqual(expected);
          expect(await tails(midpriceSchemaV3Served, V3, table, 'sample_json')).toEqual(expected);
          expect(await tails(midpriceSchemaV5, V5, table)).toEqual(rows.map(expectedTail));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('v4 stores it as each row is written, v3 served derives the same, for any slot, amounts, nulls and signature', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 30 }), async (rows) => {
        for (const { table, bucketCol } of LAST_POINT_TABLES) {
          await insert(V4, table, bucketCol, rows);
          await insert(V3, table, bucketCol, rows);
          expect(await tails(midpriceSchemaV4, V4, table)).toEqual(rows.map(expectedTail));
          expect(await tails(midpriceSchemaV3Served, V3, table)).toEqual(rows.map(expectedTail));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('an update of a stored row rewrites its tail and sample JSON (the live path moves a last point forward)', async () => {
    const [before, after] = [
      { slot: '5', signature: 'a', mid: '1', spread: null },
      { slot: '9', signature: 'b"\n', mid: null, spread: '7' },
    ];
    for (const schema of [V4, V5]) {
      await insert(schema, 'midprice_minute', 'minute_start', [before]);
      await db.pool.query(`UPDATE ${quoteIdent(schema)}.midprice_minute SET slot = $1, signature = $2, midprice_q32 = $3, spread_factor_q32 = $4`, [
        after.slot,
        after.signature,
        after.mid,
        after.spread,
      ]);
    }
    expect(await tails(midpriceSchemaV4, V4, 'midprice_minute')).toEqual([expectedTail(after)]);
    expect(await tails(midpriceSchemaV5, V5, 'midprice_minute')).toEqual([expectedTail(after)]);
    expect(await tails(midpriceSchemaV5, V5, 'midprice_minute', 'sample_json')).toEqual([expectedSampleJson(after)]);
  });

  it("a v1 build served derives its five-minute rows' tail and sample JSON from its minutes", async () => {
    const rows: Row[] = [
      { slot: '3', signature: null, mid: '10', spread: null },
      { slot: '4', signature: 'sig', mid: '11', spread: '2' },
    ];
    await insert(V1, 'midprice_minute', 'minute_start', rows);
    expect(await tails(midpriceSchemaV1Served, V1, 'midprice_five_minute')).toEqual(rows.map(expectedTail));
    expect(await tails(midpriceSchemaV1Served, V1, 'midprice_five_minute', 'sample_json')).toEqual(rows.map(expectedSampleJson));
  });
});
