import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { createLogger } from '../logging/logger';
import { freePort } from '../testing/free-port';
import { withEnv } from '../testing/with-env';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';

const log = createLogger('test', 'silent');
const ROOT = resolve(__dirname, '../../../..');

/** The OS user the server runs as: `postgres` when we are root (the module creates it), else us. */
function serverOwner(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** One value (the first row's `v`) of `sql` on the database at `url`, through a connection of its own. */
async function value(url: string, sql: string): Promise<number> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query(sql)).rows[0].v);
  } finally {
    await c.end();
  }
}

const count = (url: string) => value(url, 'SELECT count(*) AS v FROM kept');

/** A logger whose JSON lines the test reads. */
function capturingLogger(): { log: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger('test', 'info', { write: (line: string) => void lines.push(line) }, 'json'), lines };
}

/**
 * Connects as postgres with the given password ('' = none: given as a function, which node-postgres
 * calls as it is, where an empty string would send PGPASSWORD or ~/.pgpass instead) and runs `sql`.
 */
async function asPostgres(port: number, password: string, sql = 'SELECT 1', database = 'postgres'): Promise<void> {
  const c = new Client({ host: '127.0.0.1', port, user: 'postgres', password: () => password, database });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query(sql);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** What a user would see of the password protection of a started server. */
async function expectPasswordRequired(pg: EmbeddedPostgres, port: number): Promise<string> {
  const password = readFileSync(pg.passwordFile, 'utf8').trim();
  expect(password.length).toBeGreaterThanOrEqual(40);
  expect(decodeURIComponent(new URL(pg.url).password)).toBe(password);
  // No password: the server asks for one (SCRAM), so the client cannot even start.
  await expect(asPostgres(port, '')).rejects.toThrow(/SASL|password/);
  // A wrong one: refused by the server.
  await expect(asPostgres(port, 'not-the-password')).rejects.toMatchObject({ code: '28P01' });
  await expect(asPostgres(port, password)).resolves.toBeUndefined();
  const st = statSync(pg.passwordFile);
  expect(st.mode & 0o777).toBe(0o600);
  if (serverOwner().uid !== undefined) expect(st.uid).toBe(serverOwner().uid);
  const hba = readFileSync(join(dirname(pg.passwordFile), 'pg_hba.conf'), 'utf8');
  const rules = hba.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  expect(rules.length).toBeGreaterThan(0);
  for (const rule of rules) expect(rule).toMatch(/\sscram-sha-256\s*$/);
  return password;
}

/**
 * A data directory exactly as releases before password authentication made and ran it: initdb
 * --auth=trust, then pg_ctl with the same flags, as the `postgres` OS user when we are root.
 */
const legacy = {
  bin(tool: string): string {
    return join(dirname(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`))), 'native', 'bin', tool);
  },
  run(tool: string, args: string[]): void {
    const r = spawnSync(this.bin(tool), args, {
      ...serverOwner(),
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${tool} ${args[0]} failed: ${r.stderr}`);
  },
  init(dataDir: string): void {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const { uid, gid } = serverOwner();
    if (uid !== undefined) chownSync(dataDir, uid, gid!);
    this.run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale']);
  },
  start(dataDir: string, port: number, extra = ''): void {
    const flags = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=on -c max_connections=200 -c shared_buffers=256MB -c max_wal_size=4GB -c checkpoint_timeout=15min ${extra}`;
    this.run('pg_ctl', ['start', '-D', dataDir, '-w', '-t', '60', '-l', join(dataDir, 'server.log'), '-o', flags]);
  },
  stop(dataDir: string): void {
    this.run('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w']);
  },
  /** Some data, written the way that release's processes connected: no password. */
  async seed(port: number): Promise<void> {
    await asPostgres(port, '', 'CREATE DATABASE hadron');
    await asPostgres(port, '', 'CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)', 'hadron');
  },
  /** A data directory of that release with its data, on a free port; left running when `running`. */
  async make(dataDir: string, opts: { running?: boolean; extra?: string } = {}): Promise<number> {
    const port = await freePort();
    this.init(dataDir);
    this.start(dataDir, port, opts.extra);
    await this.seed(port);
    if (!opts.running) this.stop(dataDir);
    return port;
  },
};

describe('embedded Postgres (the zero-setup default)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hadron-embedded-'));
    chmodSync(dir, 0o755); // the server runs as an unprivileged user when we are root
  });
  afterAll(() => {
    // A failed test can leave a server running on one of its data directories.
    for (const d of readdirSync(dir)) if (existsSync(join(dir, d, 'postmaster.pid'))) legacy.stop(join(dir, d));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps data across a stop and start, and reuses a server left running by a killed process', async () => {
    const dataDir = join(dir, 'pg');
    const port = await freePort();
    const captured = capturingLogger();
    const first = await startEmbeddedPostgres({ dataDir, port, log: captured.log });
    expect(first.reused).toBe(false);
    const password = await expectPasswordRequired(first, port);
    expect(captured.lines.length).toBeGreaterThan(0);
    expect(captured.lines.join('')).not.toContain(password);
    expect(captured.lines.join('')).not.toContain('upgraded'); // born with a password: initdb set it
    // initdb's --pwfile is gone (other runs' temporary directories may be there, not with this password).
    const leftovers = readdirSync(tmpdir()).filter((f) => f.startsWith('hadron-initdb-') && existsSync(join(tmpdir(), f, 'pwfile')));
    expect(leftovers.filter((f) => readFileSync(join(tmpdir(), f, 'pwfile'), 'utf8').includes(password))).toEqual([]);
    const c = new Client({ connectionString: first.url });
    await c.connect();
    await c.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (1), (2)');
    await c.end();
    await first.stop();

    // A process starts the server and is SIGKILLed: the server outlives it.
    const script = `require('${ROOT}/scripts/register-ts.js');
      const { startEmbeddedPostgres } = require('${ROOT}/libs/platform/src/database/embedded-postgres.ts');
      const { createLogger } = require('${ROOT}/libs/platform/src/logging/logger.ts');
      startEmbeddedPostgres({ dataDir: '${dataDir}', port: ${port}, log: createLogger('x', 'silent') }).then(() => { console.log('up'); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((r) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('up') && r()));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const again = await startEmbeddedPostgres({ dataDir, port: port + 1, log });
    expect(again.reused).toBe(true);
    expect(again.url).toContain(`:${port}/`); // where the surviving server listens
    expect(await count(again.url)).toBe(2);

    // A second process on the same data directory, still connected: releasing leaves it running.
    const sharer = await startEmbeddedPostgres({ dataDir, port, log });
    expect(sharer.reused).toBe(true);
    const open = new Client({ connectionString: sharer.url });
    await open.connect();
    expect(await again.release()).toBe('left running');
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(true);
    expect(Number((await open.query('SELECT count(*) AS n FROM kept')).rows[0].n)).toBe(2);
    await open.end();
    // The last one out stops the adopted server: nothing outlives the processes using it.
    expect(await sharer.release()).toBe('stopped');
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);

    const cold = await startEmbeddedPostgres({ dataDir, port, log });
    expect(cold.reused).toBe(false);
    expect(await count(cold.url)).toBe(2);
    // Leaving (a benchmark keeping its database to look into): the server stays up with nobody on
    // it, the next process reuses it, and that one's release, as the last user, stops it.
    await cold.leave();
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(true);
    expect(await count(cold.url)).toBe(2);
    const next = await startEmbeddedPostgres({ dataDir, port, log });
    expect(next.reused).toBe(true);
    expect(await next.release()).toBe('stopped');
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  }, 120_000);

  it("starts in an operator's shell whose PGPASSWORD or ~/.pgpass holds the server's password", async () => {
    // The check that the server asks for a password must send none: node-postgres sends PGPASSWORD,
    // or the password file's line, in place of an empty one, and the server would seem to trust.
    const dataDir = join(dir, 'operator-shell');
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir, port, log });
    const password = readFileSync(first.passwordFile, 'utf8').trim();
    await first.stop();
    const passFile = join(dir, 'pgpass');
    writeFileSync(passFile, `127.0.0.1:${port}:*:postgres:${password}\n`, { mode: 0o600 });
    /** Starts the server as from a shell with `env` (and no other PGPASSWORD or PGPASSFILE): a start that works, upgrading nothing. */
    const startIn = (env: Record<string, string>) =>
      withEnv({ PGPASSWORD: undefined, PGPASSFILE: undefined, ...env }, async () => {
        const captured = capturingLogger();
        const pg = await startEmbeddedPostgres({ dataDir, port, log: captured.log });
        expect(await value(pg.url, 'SELECT 1 AS v')).toBe(1);
        expect(captured.lines.join('')).not.toContain('upgraded');
        await pg.stop();
      });
    await startIn({ PGPASSWORD: password });
    await startIn({ PGPASSFILE: passFile });
    expect(readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim()).toBe(password);
  }, 120_000);

  it("sizes shared_buffers to a quarter of the machine's memory (128 MB..8 GB) unless told a size", async () => {
    const show = (url: string) => value(url, `SELECT setting::int8 * 8192 AS v FROM pg_settings WHERE name = 'shared_buffers'`);
    const dataDir = join(dir, 'sized');
    const port = await freePort();
    const auto = await startEmbeddedPostgres({ dataDir, port, log });
    const quarterMb = Math.floor(totalmem() / 4 / 2 ** 20); // this machine has no cgroup limit below its memory
    expect(await show(auto.url)).toBe(Math.min(8192, Math.max(128, quarterMb)) * 2 ** 20);
    await auto.release();
    const told = await startEmbeddedPostgres({ dataDir, port, sharedBuffers: '160MB', log });
    expect(told.reused).toBe(false);
    expect(await show(told.url)).toBe(160 * 2 ** 20);
    await told.release();
  });

  it('starts its database anew when asked (npm run demo), and refuses while another process is connected to it', async () => {
    const dataDir = join(dir, 'fresh');
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir, port, log });
    const c = new Client({ connectionString: first.url });
    await c.connect();
    await c.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (1), (2)');

    // Another process still connected to the database: it is not pulled from under it.
    await expect(startEmbeddedPostgres({ dataDir, port, freshDatabase: true, log })).rejects.toThrow(
      'embedded postgres: database hadron is in use by another process, so it cannot start anew; stop that process first',
    );
    expect(Number((await c.query('SELECT count(*) AS n FROM kept')).rows[0].n)).toBe(2);
    await c.end();
    await first.stop();

    // Nobody on it: the same data directory, an empty database.
    const captured = capturingLogger();
    const fresh = await startEmbeddedPostgres({ dataDir, port, freshDatabase: true, log: captured.log });
    const tables = async () => {
      const q = new Client({ connectionString: fresh.url });
      await q.connect();
      try {
        return (await q.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'kept'")).rows[0].n as number;
      } finally {
        await q.end();
      }
    };
    expect(await tables()).toBe(0);
    expect(captured.lines.join('')).toContain('embedded postgres: database dropped, to start anew');
    await fresh.stop();
  }, 120_000);

  it('upgrades a data directory of an earlier release (trust, no password) in place, keeping its data', async () => {
    const dataDir = join(dir, 'legacy-stopped');
    const port = await legacy.make(dataDir);
    expect(existsSync(join(dataDir, 'postgres.password'))).toBe(false);

    const captured = capturingLogger();
    const pg = await startEmbeddedPostgres({ dataDir, port, log: captured.log });
    expect(pg.reused).toBe(false);
    expect(await count(pg.url)).toBe(1);
    const password = await expectPasswordRequired(pg, port);
    const messages = captured.lines.map((l) => JSON.parse(l).msg as string);
    expect(messages).toContain('embedded postgres: data directory upgraded to password authentication');
    expect(captured.lines.join('')).not.toContain(password);
    await pg.stop();

    // The next start finds it upgraded: same password, same data, no second upgrade.
    const again = capturingLogger();
    const cold = await startEmbeddedPostgres({ dataDir, port, log: again.log });
    expect(await count(cold.url)).toBe(1);
    expect(await expectPasswordRequired(cold, port)).toBe(password);
    expect(again.lines.join('')).not.toContain('upgraded');
    await cold.stop();

    // Without its password file the directory is not silently opened up again: a clear error, and
    // the server this start brought up is stopped.
    rmSync(pg.passwordFile);
    await expect(startEmbeddedPostgres({ dataDir, port, log })).rejects.toThrow(`${pg.passwordFile} is missing`);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  }, 120_000);

  it('finishes an upgrade cut short after the password file was written, with that password', async () => {
    const dataDir = join(dir, 'legacy-interrupted');
    const port = await legacy.make(dataDir);
    const file = join(dataDir, 'postgres.password');
    writeFileSync(file, 'stored-before-the-crash-0123456789abcdefghij\n', { mode: 0o600 });
    const { uid, gid } = serverOwner();
    if (uid !== undefined) chownSync(file, uid, gid!);

    const pg = await startEmbeddedPostgres({ dataDir, port, log });
    expect(await expectPasswordRequired(pg, port)).toBe('stored-before-the-crash-0123456789abcdefghij');
    expect(await count(pg.url)).toBe(1);
    await pg.stop();
  }, 120_000);

  it('upgrades a server of an earlier release that is still running, without the password reaching its log', async () => {
    const dataDir = join(dir, 'legacy-running');
    // Every statement logged: the upgrade must not put the password in the server log either way.
    const port = await legacy.make(dataDir, { running: true, extra: '-c log_statement=all' });

    const captured = capturingLogger();
    const pg = await startEmbeddedPostgres({ dataDir, port: port + 1, log: captured.log });
    expect(pg.reused).toBe(true);
    expect(await count(pg.url)).toBe(1);
    const password = await expectPasswordRequired(pg, port);
    expect(captured.lines.join('')).toContain('upgraded to password authentication');
    const serverLog = readFileSync(join(dataDir, 'server.log'), 'utf8');
    expect(serverLog).toContain('ALTER ROLE postgres PASSWORD'); // it was logged, hashed
    expect(serverLog).not.toContain(password);
    expect(await pg.release()).toBe('stopped');
  }, 120_000);
});
