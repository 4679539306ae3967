import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { createPool, endPool } from './pool';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.drop();
});

/** Backends the server still counts for an application name. */
async function backends(application: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [application]);
  return rows[0].n;
}

describe('endPool', () => {
  it('returns only once the server no longer counts any of the pool’s connections', async () => {
    // The embedded server is stopped on shutdown only if nobody else is connected: a process
    // must not see its own closing connections as "somebody else".
    for (let round = 0; round < 10; round++) {
      const application = `endpool-${randomBytes(4).toString('hex')}`;
      const pool = createPool(db.url, { max: 8, application });
      await Promise.all(Array.from({ length: 8 }, () => pool.query('SELECT pg_sleep(0.02)')));
      expect(await backends(application)).toBe(8);
      await endPool(pool);
      expect(await backends(application)).toBe(0);
    }
  });

  it('waits for a checked-out client to be given back before closing it', async () => {
    const application = `endpool-${randomBytes(4).toString('hex')}`;
    const pool = createPool(db.url, { max: 2, application });
    const client = await pool.connect();
    let ended = false;
    const ending = endPool(pool).then(() => (ended = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(ended).toBe(false);
    expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
    client.release();
    await ending;
    expect(await backends(application)).toBe(0);
  });
});
