import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Client as PgClient } from 'pg';
import type { Logger } from '../logging/logger';

/*
 * The embedded server's password authentication: every connection needs the `postgres` role's
 * password (SCRAM), kept in the data directory; a trusting data directory of an earlier release is
 * upgraded in place (see startEmbeddedPostgres in embedded-postgres.ts).
 */

const AUTH_CHECK_APPLICATION = 'hadron-embedded-auth-check';
/** The `postgres` role's password, inside the data directory (mode 0600, the server's OS user). */
export const PASSWORD_FILE = 'postgres.password';
/** How long an upgraded server may take to apply its new pg_hba.conf (pg_reload_conf is asynchronous). */
const RELOAD_WAIT_MS = 5_000;

/** What pg_hba.conf says once a data directory is upgraded: SCRAM passwords, loopback only. */
const PASSWORD_HBA = `# Written by Hadron's embedded Postgres: a password (SCRAM) for every connection, loopback only.
# The password of the postgres role is in ${PASSWORD_FILE} next to this file.
# TYPE  DATABASE     USER  ADDRESS       METHOD
host    all          all   127.0.0.1/32  scram-sha-256
host    all          all   ::1/128       scram-sha-256
host    replication  all   127.0.0.1/32  scram-sha-256
host    replication  all   ::1/128       scram-sha-256
`;

/**
 * Makes sure the server asks every connection for the password, and returns it. A data directory
 * of an earlier release trusts every local connection: it is upgraded in place, data untouched —
 * the postgres role gets a password (stored first, so an interrupted upgrade resumes with the same
 * one), pg_hba.conf is rewritten to SCRAM lines only and the server reloads it. The same applies
 * to a trusting server still running from an earlier release (the adopted-server case). Asking the
 * server itself, rather than looking for the password file, also finishes an upgrade that was cut
 * short after the file was written.
 */
export async function ensurePasswordAuth(o: {
  dataDir: string;
  passwordFile: string;
  port: number;
  asUser: { uid?: number; gid?: number };
  log: Logger;
}): Promise<string> {
  const stored = readPassword(o.passwordFile);
  const trusting = await connectWithoutPassword(o.port);
  if (!trusting) {
    if (stored === undefined) {
      throw new Error(
        `embedded postgres: the server on ${o.dataDir} requires a password, but ${o.passwordFile} is missing; restore that file, or set DATABASE_URL to connect with your own credentials`,
      );
    }
    return stored;
  }
  try {
    const password = stored ?? storePassword(o.passwordFile, newPassword(), o.asUser);
    // Sent as a SCRAM verifier, not in clear: the statement text can reach the server log
    // (log_statement, or the statement of a failed command) and pg_stat_activity.
    await trusting.query(`ALTER ROLE postgres PASSWORD '${scramVerifier(password)}'`);
    const hbaFile = (await trusting.query<{ hba_file: string }>('SHOW hba_file')).rows[0].hba_file;
    writeOwned(hbaFile, PASSWORD_HBA, o.asUser);
    await trusting.query('SELECT pg_reload_conf()');
    for (const deadline = Date.now() + RELOAD_WAIT_MS; ;) {
      const still = await connectWithoutPassword(o.port);
      if (!still) break;
      await still.end();
      if (Date.now() >= deadline)
        throw new Error(
          `embedded postgres: ${hbaFile} was rewritten for password authentication, but the server still lets connections in without one (see its server.log)`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    o.log.info({ dataDir: o.dataDir, passwordFile: o.passwordFile }, 'embedded postgres: data directory upgraded to password authentication');
    return password;
  } finally {
    await trusting.end().catch(() => undefined);
  }
}

/**
 * A connection as postgres with no password: open when the server still trusts (the caller ends
 * it), undefined when it asks for a password. Any other failure is thrown.
 */
async function connectWithoutPassword(port: number): Promise<PgClient | undefined> {
  const { Client } = await import('pg');
  // An empty password, given as a function: node-postgres sends PGPASSWORD or the ~/.pgpass line in
  // place of an empty string (or none), and an operator's shell holding the server's password made
  // a server that asks for one look trusting (the upgrade then waited for it to stop, and failed).
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', password: () => '', database: 'postgres', application_name: AUTH_CHECK_APPLICATION });
  client.on('error', () => undefined); // a failure rejects connect() below
  try {
    await client.connect();
    return client;
  } catch (e) {
    const err = e as Error & { code?: string };
    await client.end().catch(() => undefined);
    // 28P01: wrong password; 28000: no pg_hba line lets it in; the client's own refusal to start
    // SCRAM with an empty password (the server asked for one) has no code.
    if (err.code === '28P01' || err.code === '28000' || /^SASL: /.test(err.message)) return undefined;
    throw err;
  }
}

/** 32 random bytes, base64url: URL-safe, and unchanged by SCRAM's SASLprep. */
export function newPassword(): string {
  return randomBytes(32).toString('base64url');
}

function readPassword(file: string): string | undefined {
  try {
    const password = readFileSync(file, 'utf8').trim();
    if (!password) throw new Error(`embedded postgres: ${file} is empty`);
    return password;
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return undefined;
    throw e;
  }
}

/**
 * Writes the password file unless it exists, atomically (hard link of a complete temporary file):
 * processes upgrading one data directory at the same moment all end up with the first one's.
 */
export function storePassword(file: string, password: string, owner: { uid?: number; gid?: number }): string {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${password}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600); // whatever the umask
    if (owner.uid !== undefined) chownSync(tmp, owner.uid, owner.gid!);
    linkSync(tmp, file);
    return password;
  } catch (e) {
    if ((e as { code?: string }).code !== 'EEXIST') throw e;
    return readPassword(file)!;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Replaces a file of the data directory atomically, mode 0600, owned by the server's user. */
function writeOwned(file: string, text: string, owner: { uid?: number; gid?: number }): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  if (owner.uid !== undefined) chownSync(tmp, owner.uid, owner.gid!);
  renameSync(tmp, file);
}

/** The SCRAM-SHA-256 verifier Postgres stores for `password` (RFC 5802/7677, as pg's own scram_build_secret). */
function scramVerifier(password: string): string {
  const iterations = 4096;
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const storedKey = createHash('sha256').update(createHmac('sha256', salted).update('Client Key').digest()).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
