import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { benchPostgres } from './bench-postgres';
import { freePort } from './free-port';
import { withEnv } from './with-env';

/** Runs `text` on `url` in a connection of its own. */
async function sql<R extends object = object>(url: string, text: string): Promise<R[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

describe('benchPostgres: where a kept benchmark database is', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'hadron-bench-pg-'));
    chmodSync(root, 0o755); // the embedded server runs as an unprivileged user when we are root
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('on the embedded server: left running, and the printed command reaches the kept database (no password in the line)', async () => {
    const port = await freePort();
    await withEnv({ DATABASE_URL: undefined, BENCH_PG_PORT: String(port) }, async () => {
      const pg = await benchPostgres(root);
      await sql(pg.adminUrl, 'CREATE DATABASE bench_kept_here');

      const line = (await pg.stop({ name: 'bench_kept_here', keep: true }))!;
      const password = decodeURIComponent(new URL(pg.adminUrl).password);
      expect(line).not.toContain(password);
      expect(line).toContain('kept database bench_kept_here on the embedded server');
      // What a user would run: PGPASSWORD="$(cat <file>)" psql -h 127.0.0.1 -p <port> -U postgres <db>.
      const [, file, listens, db] = /PGPASSWORD="\$\(cat (\S+)\)" psql -h 127\.0\.0\.1 -p (\d+) -U postgres (\S+)/.exec(line)!;
      expect(Number(listens)).toBe(port);
      const user = new Client({
        host: '127.0.0.1',
        port: Number(listens),
        user: 'postgres',
        password: readFileSync(resolve(file), 'utf8').trim(),
        database: db,
      });
      await user.connect();
      expect((await user.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db).toBe('bench_kept_here');
      await user.end();
      expect(existsSync(join(root, '.data/bench-postgres/postmaster.pid'))).toBe(true);

      // The next benchmark that keeps nothing finds the server running, drops its own database and
      // stops the server on its way out; the kept one is still there.
      const next = await benchPostgres(root);
      await sql(next.adminUrl, 'CREATE DATABASE bench_thrown_away');
      expect(await next.stop({ name: 'bench_thrown_away', keep: false })).toBeUndefined();
      expect(existsSync(join(root, '.data/bench-postgres/postmaster.pid'))).toBe(false);
      const after = await benchPostgres(root);
      const names = await sql<{ datname: string }>(after.adminUrl, `SELECT datname FROM pg_database WHERE datname LIKE 'bench_%' ORDER BY 1`);
      expect(names.map((r) => r.datname)).toEqual(['bench_kept_here']);
      expect(await after.stop()).toBeUndefined();
      expect(existsSync(join(root, '.data/bench-postgres/postmaster.pid'))).toBe(false);
    });
  }, 120_000);

  it("on DATABASE_URL's server: says so, without the URL (it may carry a password)", async () => {
    const url = 'postgres://postgres:s3cret-word@127.0.0.1:5432/test';
    await withEnv({ DATABASE_URL: url }, async () => {
      const pg = await benchPostgres(root);
      expect(pg.adminUrl).toBe(url);
      const line = await pg.stop({ name: 'bench_x', keep: true });
      expect(line).toBe("kept database bench_x on DATABASE_URL's server");
      expect(await pg.stop()).toBeUndefined();
    });
  });
});
