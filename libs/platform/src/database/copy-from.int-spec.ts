import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { copyFrom, copyLine } from './copy-from';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query('CREATE TABLE copy_target (n int NOT NULL, s text)');
  // Slow rows: a COPY into copy_slow takes about 50 ms per row, long enough to be cut off midway.
  await db.pool.query(`CREATE TABLE copy_slow (n int NOT NULL);
    CREATE FUNCTION copy_slow_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.05); RETURN NEW; END $$;
    CREATE TRIGGER copy_slow_row BEFORE INSERT ON copy_slow FOR EACH ROW EXECUTE FUNCTION copy_slow_row()`);
});

afterAll(() => db.drop());

async function client(application: string): Promise<Client> {
  const c = new Client({ connectionString: db.url, application_name: application });
  c.on('error', () => undefined); // a terminated backend: the COPY's own promise reports it
  await c.connect();
  return c;
}

/** `p` settled within `ms`: its value or error; 'pending' if it had not. */
function settledWithin<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { error: Error } | 'pending'> {
  return Promise.race([
    p.then(
      (value) => ({ value }),
      (error: Error) => ({ error }),
    ),
    new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms).unref()),
  ]);
}

describe('copyFrom', () => {
  it('copies the rows and returns how many, escapes included', async () => {
    const c = await client('copy-ok');
    try {
      const text = Buffer.from([copyLine(['1', 'a\tb']), copyLine(['2', null]), copyLine(['3', 'back\\slash\nline'])].join(''));
      expect(await copyFrom(c, 'COPY copy_target (n, s) FROM STDIN', [text])).toBe(3);
      const { rows } = await c.query('SELECT n, s FROM copy_target ORDER BY n');
      expect(rows).toEqual([
        { n: 1, s: 'a\tb' },
        { n: 2, s: null },
        { n: 3, s: 'back\\slash\nline' },
      ]);
    } finally {
      await c.end();
    }
  });

  it('rejects with the server’s error when it refuses the data, and the connection takes the next query', async () => {
    const c = await client('copy-refused');
    try {
      const outcome = await settledWithin(copyFrom(c, 'COPY copy_target (n, s) FROM STDIN', [Buffer.from(copyLine(['not a number', 'x']))]), 5000);
      expect(outcome).toEqual({ error: expect.objectContaining({ message: expect.stringMatching(/invalid input syntax for type integer/) }) });
      expect((await c.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await c.end();
    }
  });

  it('rejects when its connection is terminated during the COPY, instead of waiting forever', async () => {
    const c = await client('copy-terminated');
    try {
      const rows = Buffer.from(Array.from({ length: 200 }, (_, i) => copyLine([String(i)])).join(''));
      // Observed from the start (settledWithin attaches at once): the rejection may come before
      // pg_terminate_backend's own answer, and an unobserved rejection fails the test.
      const outcome = settledWithin(copyFrom(c, 'COPY copy_slow (n) FROM STDIN', [rows]), 10_000);
      await new Promise((r) => setTimeout(r, 500));
      const { rows: killed } = await db.pool.query<{ ok: boolean }>(
        "SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'copy-terminated'",
      );
      expect(killed).toEqual([{ ok: true }]);
      expect(await outcome).toEqual({ error: expect.any(Error) });
    } finally {
      await c.end().catch(() => undefined);
    }
  });
});
