import { Pool, types, type PoolClient } from 'pg';
import { atMost } from '../runtime/at-most';

// int8 and numeric stay strings (u64 and exact sums must not pass through JS numbers).
types.setTypeParser(types.builtins.INT8, (v) => v);
types.setTypeParser(types.builtins.NUMERIC, (v) => v);

/** Per pool made here, a promise for each of its connections that has not closed yet (see endPool). */
const closings = new WeakMap<Pool, Set<Promise<void>>>();

export function createPool(url: string, opts: { max?: number; application?: string } = {}): Pool {
  const pool = new Pool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.application ?? 'hadron',
    // A float8 as its shortest exact text, as JavaScript writes it: the midprice sample JSON that
    // Postgres writes and stores relies on it (midprice-sample-json.ts). It is the server's
    // default, but a server, role or URL (`options=-c extra_float_digits=0`) set to 0 or less
    // would round to 15 digits. pg-pool awaits this before it hands the new connection out; if it
    // fails, the connection is dropped and the caller gets the error.
    onConnect: async (client) => {
      await client.query('SET extra_float_digits = 1');
    },
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const open = new Set<Promise<void>>();
  closings.set(pool, open);
  pool.on('connect', (client) => {
    // pg-pool listens for 'error' only while a client is idle; a checked-out client whose backend
    // dies (pg_terminate_backend, a restart, a failover) emits 'error' too, and an 'error' event
    // with no listener kills the process. Its in-flight and later queries fail instead, the holder
    // sees that, and the pool drops the client on release (it is no longer queryable).
    client.on('error', () => undefined);
    const closed: Promise<void> = new Promise<void>((resolve) => client.once('end', resolve)).then(() => void open.delete(closed));
    open.add(closed);
  });
  return pool;
}

/**
 * Ends the pool and waits (at most `timeoutMs`) until every one of its connections has closed.
 * pg-pool's end() resolves once it has asked its clients to end, before their connections have
 * closed: the server still counts those backends, so a check made right after it ("is anyone else
 * connected?") would see this process's own closing connections.
 */
export async function endPool(pool: Pool, timeoutMs = 10_000): Promise<void> {
  await pool.end();
  await atMost(Promise.all(closings.get(pool) ?? []), timeoutMs);
}

/**
 * Runs `fn` in a transaction on a connection of `pool`: committed if it resolves; rolled back if it
 * throws, which rethrows `fn`'s error (not a failed ROLLBACK's, say on a connection already lost).
 */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

/** Connection-level failures: retry later, never dead-letter an event because of them. */
export function isTransientDbError(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  const code = err?.code ?? '';
  return (
    code.startsWith('08') || // connection exception
    code === '57P01' ||
    code === '57P02' ||
    code === '57P03' || // admin shutdown, crash shutdown, cannot connect now
    code === '40001' ||
    code === '40P01' || // serialization failure, deadlock
    code === '53300' || // too many connections
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code) ||
    /Connection terminated|connection.*closed|Client has encountered a connection error/i.test(err?.message ?? '')
  );
}

/**
 * A deployable's readiness gated on its database answering: while it does not (down, restarting,
 * failing over), not ready with the reason, without asking `ready` (whose own reads would fail).
 * Pools reconnect by themselves, so readiness comes back as soon as the server does.
 */
export function whenDatabaseAnswers(pool: Pool, ready: () => Promise<{ ready: boolean; detail: unknown }>): () => Promise<{ ready: boolean; detail: unknown }> {
  return async () => {
    try {
      await pool.query('SELECT 1');
    } catch (e) {
      return { ready: false, detail: { reasons: [`database unreachable: ${(e as Error).message || (e as { code?: string }).code || 'error'}`] } };
    }
    return ready();
  };
}
