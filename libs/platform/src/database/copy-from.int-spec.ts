import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { copyFieldText, copyFrom, copyLine, copyTo } from './copy-from';

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

describe('copyFrom with chunks computed as it goes (an async iterable)', () => {
  it('sends each chunk as it comes; when the chunks fail, the COPY is aborted (no row kept) and rejects with their error, and the connection takes the next query', async () => {
    const c = await client('copy-iterable');
    try {
      await c.query('CREATE TEMP TABLE copy_stream (n int NOT NULL)');
      async function* chunks(failAt?: number) {
        for (let i = 0; i < 5; i++) {
          if (i === failAt) throw new Error('the producer broke');
          await new Promise((r) => setImmediate(r));
          yield Buffer.from(copyLine([String(i)]));
        }
      }
      expect(await copyFrom(c, 'COPY copy_stream (n) FROM STDIN', chunks())).toBe(5);
      const outcome = await settledWithin(copyFrom(c, 'COPY copy_stream (n) FROM STDIN', chunks(3)), 5000);
      expect(outcome).toEqual({ error: expect.objectContaining({ message: 'the producer broke' }) });
      expect((await c.query('SELECT array_agg(n ORDER BY n) AS n FROM copy_stream')).rows).toEqual([{ n: [0, 1, 2, 3, 4] }]);
    } finally {
      await c.end();
    }
  });
});

describe('copyTo', () => {
  const rows = (n: number) => `COPY (SELECT i, 'row ' || i || E'\\t' || repeat('x', 200) FROM generate_series(1, ${n}) i) TO STDOUT`;

  it('gives each row as COPY text, in order, and the count', async () => {
    const c = await client('copy-to');
    try {
      const seen: string[] = [];
      expect(await copyTo(c, rows(3), (row) => void seen.push(row.toString()))).toBe(3);
      expect(seen).toEqual([1, 2, 3].map((i) => `${i}\trow ${i}\\t${'x'.repeat(200)}\n`));
    } finally {
      await c.end();
    }
  });

  it('stops reading while its consumer is full (a promise from onRow) and reads on once it is not: every row, in order', async () => {
    const c = await client('copy-to-paused');
    try {
      const seen: number[] = [];
      let paused = 0;
      const count = await copyTo(c, rows(20_000), (row) => {
        seen.push(Number(row.toString().split('\t')[0]));
        if (seen.length % 5000 !== 0) return undefined;
        paused++;
        return new Promise((r) => setTimeout(r, 50));
      });
      expect(count).toBe(20_000);
      expect(paused).toBe(4);
      expect(seen).toEqual(Array.from({ length: 20_000 }, (_, i) => i + 1));
    } finally {
      await c.end();
    }
  });

  it('rejects with what onRow threw, after the rest is drained: the connection takes the next query', async () => {
    const c = await client('copy-to-failed');
    try {
      let calls = 0;
      const outcome = await settledWithin(
        copyTo(c, rows(1000), () => {
          if (++calls === 10) throw new Error('the consumer broke');
        }),
        5000,
      );
      expect(outcome).toEqual({ error: expect.objectContaining({ message: 'the consumer broke' }) });
      expect(calls).toBe(10);
      expect((await c.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await c.end();
    }
  });

  it('rejects with the server’s error (a failing query), and the connection takes the next query', async () => {
    const c = await client('copy-to-refused');
    try {
      const outcome = await settledWithin(
        copyTo(c, 'COPY (SELECT 1 / (i - 3) FROM generate_series(1, 5) i) TO STDOUT', () => undefined),
        5000,
      );
      expect(outcome).toEqual({ error: expect.objectContaining({ message: 'division by zero' }) });
      expect((await c.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
    } finally {
      await c.end();
    }
  });
});

describe('copyFieldText', () => {
  it('gives back exactly the text Postgres stored, for every field of its COPY TO output', async () => {
    // Every ASCII character but NUL (text cannot hold it), alone and between others, runs of
    // backslashes, a JSON array of strings that need escaping, and text beyond ASCII.
    const ascii = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1));
    const values = [...ascii, ...ascii.map((c) => `a${c}b${c}${c}`), '\\\\\\', '\\t\\n', JSON.stringify(['tab\there', 'quote"', 'back\\slash']), 'ünï ✓ 𝄞', ''];
    const c = await client('copy-field-text');
    try {
      await c.query('CREATE TEMP TABLE copy_texts (n int, s text)');
      await c.query('INSERT INTO copy_texts SELECT n, s FROM unnest($1::text[]) WITH ORDINALITY AS t(s, n)', [values]);
      const stored = (await c.query<{ s: string }>('SELECT s FROM copy_texts ORDER BY n')).rows.map((r) => r.s);
      expect(stored).toEqual(values);
      const fields: string[] = [];
      await copyTo(c, 'COPY (SELECT n, s FROM copy_texts ORDER BY n) TO STDOUT', (row) => {
        const line = row.toString('utf8', 0, row.length - 1);
        const [, field, ...more] = line.split('\t');
        expect(more).toEqual([]); // a tab inside a value is escaped, never a separator
        fields.push(copyFieldText(field));
      });
      expect(fields).toEqual(stored);
    } finally {
      await c.end();
    }
  });
});
