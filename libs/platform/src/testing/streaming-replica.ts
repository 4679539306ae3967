import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withClient, withDatabase } from '../database/admin';
import { binDir, serverUser } from '../database/embedded-postgres';

/**
 * A real hot-standby streaming replica of a running Postgres, for tests and benchmarks: a base
 * backup (`pg_basebackup -R`, over the replication protocol) into a temporary directory, started
 * with the embedded Postgres binaries on a port of its own. The primary must accept replication
 * connections from the URL's role (the embedded server and a default Debian one do).
 */
export interface StreamingReplica {
  /** The replica's server (the primary's credentials), database `postgres`. */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** The replica URL of a database of the primary. */
  urlFor(database: string): string;
  /** Waits until the replica has replayed everything the primary had written when this was called. */
  catchUp(timeoutMs?: number): Promise<void>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops the replica and removes its data directory. */
  stop(): Promise<void>;
}

/** Settings a hot standby must have at least as high as its primary's, or it refuses to start. */
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];
/** …and the primary's cache size, so reads on either compare (a bench runs the same queries on both). */
const COPIED = [...AT_LEAST_PRIMARY, 'shared_buffers'];

export async function startStreamingReplica(opts: { primaryUrl: string; port?: number; startTimeoutS?: number }): Promise<StreamingReplica> {
  const primary = new URL(withDatabase(opts.primaryUrl, 'postgres'));
  const settings = await withClient(primary.toString(), async (c) => {
    const { rows } = await c.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name = ANY($1) OR name IN ('wal_level', 'server_version_num')`,
      [COPIED],
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  });
  if (settings.wal_level === 'minimal') throw new Error('the primary runs with wal_level=minimal: no streaming replica can follow it');
  const major = Math.floor(Number(settings.server_version_num) / 10_000);
  const embeddedMajor = await postgresMajor(join(binDir(), 'postgres'));
  if (major !== embeddedMajor) throw new Error(`the primary is Postgres ${major}; the embedded binaries that run the replica are ${embeddedMajor}`);
  const basebackup = findPgBasebackup(major);

  const asUser = serverUser();
  // The postgres OS user (when we are root) must be able to enter the temporary directory.
  const base = mkdtempSync(join(tmpdir(), 'hadron-replica-'));
  chmodSync(base, 0o711);
  const dataDir = join(base, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  if (asUser.uid !== undefined) chownSync(dataDir, asUser.uid, asUser.gid!);
  const port = opts.port ?? (await freePort());
  const env = { ...process.env, LC_ALL: 'C', PGPASSWORD: decodeURIComponent(primary.password) };
  const pgCtl = join(binDir(), 'pg_ctl');
  let started = false;
  const stop = async () => {
    if (started) await exec(pgCtl, ['stop', '-D', dataDir, '-m', 'immediate', '-w'], { ...asUser, env }).catch(() => undefined);
    started = false;
    rmSync(base, { recursive: true, force: true });
  };
  try {
    // -R writes primary_conninfo (with the password: the directory is 0700, the server user's) and standby.signal.
    await exec(
      basebackup,
      [
        '-h',
        primary.hostname,
        '-p',
        primary.port || '5432',
        '-U',
        decodeURIComponent(primary.username || 'postgres'),
        '-D',
        dataDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-sync',
        '-w',
      ],
      { ...asUser, env },
    );
    const same = COPIED.filter((k) => settings[k] !== undefined).map((k) => `-c ${k}=${settings[k]}`);
    const flags = [`-p ${port}`, '-c listen_addresses=127.0.0.1', "-c unix_socket_directories=''", '-c hot_standby=on', ...same].join(' ');
    // In a session of its own, as the embedded server: a Ctrl-C of the test run does not reach it.
    started = true;
    await exec(pgCtl, ['start', '-D', dataDir, '-w', '-t', String(opts.startTimeoutS ?? 60), '-l', join(dataDir, 'server.log'), '-o', flags], {
      ...asUser,
      env,
    });
  } catch (e) {
    const log = join(dataDir, 'server.log');
    await stop();
    throw new Error(
      `streaming replica failed to start${existsSync(log) ? ` (see ${log})` : ''}: ${(e as Error & { stderr?: string }).stderr?.trim() || (e as Error).message}`,
    );
  }

  const replica = new URL(primary.toString());
  replica.hostname = '127.0.0.1';
  replica.port = String(port);
  const adminUrl = replica.toString();
  const onReplica = <T>(sql: string) => withClient(adminUrl, async (c) => (await c.query(sql)).rows as T[]);
  const catchUp = async (timeoutMs = 30_000) => {
    const [{ lsn }] = await withClient(primary.toString(), async (c) => (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows);
    for (const deadline = Date.now() + timeoutMs; ;) {
      const [r] = await onReplica<{ done: boolean }>(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`).catch(() => [{ done: false }]);
      if (r.done) return;
      if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  await catchUp(60_000);
  return {
    adminUrl,
    port,
    dataDir,
    urlFor: (database) => withDatabase(adminUrl, database),
    catchUp,
    pauseReplay: async () => void (await onReplica('SELECT pg_wal_replay_pause()')),
    resumeReplay: async () => void (await onReplica('SELECT pg_wal_replay_resume()')),
    stop,
  };
}

/** pg_basebackup of the primary's major version: PG_BIN_DIR, the embedded package, Debian's, PATH. */
function findPgBasebackup(major: number): string {
  const dirs = [process.env.PG_BIN_DIR, binDir(), `/usr/lib/postgresql/${major}/bin`, `/usr/pgsql-${major}/bin`, ...(process.env.PATH ?? '').split(':')].filter(
    (d): d is string => !!d,
  );
  const found = dirs.map((d) => join(d, 'pg_basebackup')).find((f) => existsSync(f));
  if (!found) throw new Error(`pg_basebackup (Postgres ${major}) not found in ${dirs.slice(0, 4).join(', ')} or PATH; set PG_BIN_DIR`);
  return found;
}

async function postgresMajor(postgres: string): Promise<number> {
  const out = await exec(postgres, ['--version'], { env: process.env });
  return Number(/(\d+)\.\d+/.exec(out)?.[1]);
}

/** Runs a program detached (its own session); resolves with its stdout on exit 0, else rejects with its stderr. */
function exec(file: string, args: string[], opts: { uid?: number; gid?: number; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, cwd: '/', detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(Object.assign(new Error(`${file} ${args[0]} exited with ${code ?? signal}`), { stderr }));
    });
  });
}
