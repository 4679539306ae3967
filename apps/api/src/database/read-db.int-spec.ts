import fc from 'fast-check';
import { createLogger } from '@hadron/platform/logging/logger';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { batchable } from './batched-statement';
import { MAX_BATCH, ReadDb } from './read-db';

/**
 * Batched executions (ReadDb.batched) against real Postgres: whatever shares a round trip, each
 * execution gets exactly the rows the statement gives it alone, values of every kind the API sends
 * (any text, int8 up to 2^53, nulls) included, and one execution's error stays its own.
 */
describe('ReadDb: batchable statements sharing round trips', () => {
  let db: TestDatabase;
  const log = createLogger('read-db-spec', 'silent');
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query(`CREATE TABLE items (owner text NOT NULL, at bigint NOT NULL, note text, PRIMARY KEY (owner, at))`);
    await db.pool.query(`INSERT INTO items SELECT 'o' || (i % 7), i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'n' || i END FROM generate_series(1, 700) i`);
  });
  afterAll(() => db?.drop());

  // Several rows per execution, of several types, with a parameter used twice and one only in a cast.
  const ITEMS = batchable('spec-items', `SELECT owner, at, note, $3::text AS echo, $4::int8 AS big FROM items WHERE owner = $1 AND at >= $2 AND at < $2 + 50`, [
    'text',
    'int8',
    'text',
    'int8',
  ]);
  // One row each (as the midprice statements): an aggregate.
  const COUNT = batchable('spec-count', `SELECT count(*)::int8 AS n, string_agg(note, ',' ORDER BY at) AS notes FROM items WHERE owner = $1 AND at < $2`, [
    'text',
    'int8',
  ]);
  const text = fc.oneof(
    fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000')),
    fc.constantFrom('', "'", '"', '\\', 'a\nb', 'é😀', '$1', '{"i":0}'),
  );
  const itemValues = fc.tuple(
    fc.constantFrom('o0', 'o3', 'o6', 'nobody'),
    fc.integer({ min: 0, max: 700 }),
    fc.option(text),
    fc.oneof(fc.constant(null), fc.maxSafeInteger(), fc.constant(-(2 ** 53) + 1)),
  );
  const byAt = (rows: Array<{ at: string }>) => [...rows].sort((a, b) => Number(a.at) - Number(b.at));

  it('gives every execution sharing a round trip exactly its own rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(itemValues, { minLength: 2, maxLength: 40 }), async (sets) => {
        const alone = new ReadDb(db.pool, log, 0);
        const shared = new ReadDb(db.pool, log, 1);
        const expected = await Promise.all(sets.map((v) => alone.batched<{ at: string }>(ITEMS, v)));
        const got = await Promise.all(sets.map((v) => shared.batched<{ at: string }>(ITEMS, v)));
        expect(got.map(byAt)).toEqual(expected.map(byAt));
        // Not vacuous: one round trip at a time, so the first ran alone and the rest, waiting meanwhile, shared round trips of at most MAX_BATCH.
        expect(shared.batchStats.executions).toBe(sets.length);
        expect(shared.batchStats.roundTrips).toBe(1 + Math.ceil((sets.length - 1) / MAX_BATCH));
      }),
      { numRuns: 25 },
    );
  });

  it('gives rows as arrays in SELECT order too, and mixes statements without mixing their answers', async () => {
    const shared = new ReadDb(db.pool, log, 1);
    const owners = ['o1', 'o2', 'o4', 'o5'];
    const jobs = owners.flatMap((o, i) => [
      shared.batchedArrays<[string, string | null]>(COUNT, [o, 100 * (i + 1)]),
      shared.batched<{ owner: string }>(ITEMS, [o, 10 * i, `echo ${o}`, i]),
    ]);
    const got = await Promise.all(jobs);
    for (const [i, o] of owners.entries()) {
      const [[n, notes]] = got[2 * i] as Array<[string, string | null]>;
      const alone = await db.pool.query(`SELECT count(*)::int8 AS n, string_agg(note, ',' ORDER BY at) AS notes FROM items WHERE owner = $1 AND at < $2`, [
        o,
        100 * (i + 1),
      ]);
      expect([n, notes]).toEqual([alone.rows[0].n, alone.rows[0].notes]);
      const items = got[2 * i + 1] as Array<{ owner: string; echo: string; big: string }>;
      expect(items.length).toBeGreaterThan(0);
      expect(new Set(items.map((r) => `${r.owner} ${r.echo} ${r.big}`))).toEqual(new Set([`${o} echo ${o} ${i}`]));
    }
    expect(shared.batchStats.roundTrips).toBeLessThan(jobs.length);
  });

  it("keeps one execution's error its own: the others of its round trip are answered", async () => {
    const DIVIDE = batchable('spec-divide', `SELECT 100 / $1::int8 AS q`, ['int8']);
    const shared = new ReadDb(db.pool, log, 1);
    const outcomes = await Promise.allSettled([5, 0, 4, 20, 0, 1].map((d) => shared.batched<{ q: string }>(DIVIDE, [d])));
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value[0].q : (o.reason as Error).message))).toEqual([
      '20',
      'division by zero',
      '25',
      '5',
      'division by zero',
      '100',
    ]);
  });

  it('refuses values that do not match the statement', async () => {
    await expect(new ReadDb(db.pool, log, 1).batched(COUNT, ['o1'])).rejects.toThrow('spec-count: 1 values for 2 parameters');
  });
});
