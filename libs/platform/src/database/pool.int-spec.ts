import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { createPool, endPool, inTransaction, isTransientDbError, whenDatabaseAnswers } from './pool';

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

/** Terminates the backends of an application name, as an SRE's pg_terminate_backend would. */
async function terminate(application: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1`,
    [application],
  );
  return rows[0].n;
}

describe('a pool survives its connections being terminated', () => {
  it('a checked-out client losing its backend fails its queries, does not crash the process, and the pool reconnects', async () => {
    const application = `fault-${randomBytes(4).toString('hex')}`;
    const pool = createPool(db.url, { max: 2, application });
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const held = await pool.connect(); // e.g. a session-lock or LISTEN connection
      await pool.query('SELECT 1'); // and an idle one
      expect(await terminate(application)).toBe(2);
      await new Promise((r) => setTimeout(r, 200));
      await expect(held.query('SELECT 1')).rejects.toThrow();
      held.release(); // not queryable: the pool drops it rather than handing it out again
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0].one).toBe(1);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await endPool(pool);
    }
  });
});

describe('whenDatabaseAnswers', () => {
  it('is not ready, with the reason, while the database does not answer, and asks the inner check once it does', async () => {
    const inner = jest.fn(async () => ({ ready: true, detail: ['ok'] }));
    const down = createPool('postgres://postgres@127.0.0.1:1/none', { max: 1, application: 'down' });
    try {
      const r = await whenDatabaseAnswers(down, inner)();
      expect(r.ready).toBe(false);
      expect(JSON.stringify(r.detail)).toContain('database unreachable');
      expect(inner).not.toHaveBeenCalled();
    } finally {
      await endPool(down);
    }
    expect(await whenDatabaseAnswers(db.pool, inner)()).toEqual({ ready: true, detail: ['ok'] });
  });
});

describe('inTransaction', () => {
  it('commits what the work wrote when it resolves, and returns its result', async () => {
    await db.pool.query('CREATE TABLE tx_commit (v int)');
    const out = await inTransaction(db.pool, async (c) => {
      await c.query('INSERT INTO tx_commit VALUES (1), (2)');
      return 'done';
    });
    expect(out).toBe('done');
    expect((await db.pool.query('SELECT count(*)::int AS n FROM tx_commit')).rows[0].n).toBe(2);
  });

  it('rolls back all the work wrote when it throws, rethrows its error, and gives back a usable connection', async () => {
    await db.pool.query('CREATE TABLE tx_rollback (v int)');
    const pool = createPool(db.url, { max: 1 });
    try {
      await expect(
        inTransaction(pool, async (c) => {
          await c.query('INSERT INTO tx_rollback VALUES (1)');
          throw new Error('work failed');
        }),
      ).rejects.toThrow('work failed');
      expect((await db.pool.query('SELECT count(*)::int AS n FROM tx_rollback')).rows[0].n).toBe(0);
      // The pool's one connection is back, and not left inside the failed transaction.
      expect((await pool.query('SELECT now() = statement_timestamp() AS own_statement')).rows[0].own_statement).toBe(true);
    } finally {
      await endPool(pool);
    }
  });

  it('rethrows the work’s error, not the ROLLBACK’s, when the connection was lost meanwhile', async () => {
    const pool = createPool(db.url, { max: 1 });
    try {
      // What the work's query sees depends on a race: the server's 57P01 (admin_shutdown) if the query
      // goes out before the client has read the termination, or pg's "not queryable" if after. Either
      // way inTransaction must rethrow that very error, not the one its ROLLBACK then meets.
      let seen: unknown;
      const thrown = await inTransaction(pool, async (c) => {
        await db.pool.query('SELECT pg_terminate_backend($1)', [(await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid]);
        await c.query('SELECT 1').catch((e: unknown) => {
          seen = e;
          throw e;
        });
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(seen).toBeInstanceOf(Error);
      expect(isTransientDbError(seen)).toBe(true); // the termination, as the work saw it
      expect(thrown).toBe(seen);
      expect((await pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      await endPool(pool);
    }
  });
});
