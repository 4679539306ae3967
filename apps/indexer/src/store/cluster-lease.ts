import { hostname } from 'node:os';
import { Client, type Pool, type PoolClient } from 'pg';

/** The cluster lock and the fencing of appends by its epoch (IndexerStore.tryLockCluster / fenced). */

/** The transaction of a fenced append (IndexerStore.fenced): the indexer's writes that go with it run in it. */
export type FencedTx = PoolClient;

/** An append refused: this process no longer holds the cluster (its lock connection is gone, or another holder took over). */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** The cluster lock, held: its fencing epoch, and whether its connection was lost. */
export class ClusterLease {
  epoch = 0n;
  /** Why the lock was lost (its connection failed or ended); null while held. */
  lost: Error | null = null;
  private released = false;
  private readonly listeners: Array<(e: Error) => void> = [];

  constructor(
    readonly cluster: string,
    private readonly client: Client,
    private readonly key: string,
  ) {}

  /** Called once if the lock is lost (not on release). */
  onLost(cb: (e: Error) => void): void {
    this.listeners.push(cb);
  }

  /** Throws LeaseLostError once the lock is lost. */
  check(): void {
    if (this.lost) throw new LeaseLostError(`cluster ${this.cluster}: lock connection lost (${this.lost.message}); not appending`);
  }

  lose(e: Error): void {
    if (this.released || this.lost) return;
    this.lost = e;
    for (const cb of this.listeners) cb(e);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (!this.lost) await this.client.query('SELECT pg_advisory_unlock(hashtext($1))', [this.key]).catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }
}

/**
 * One active indexer per cluster: a session advisory lock held on a connection of its own
 * (application_name `hadron-indexer-lock:<cluster>`) for as long as the indexer runs; a crashed
 * process's lock goes with its connection. Taking it bumps the cluster's lease epoch, which
 * fences every later append (see `fenced`). The connection failing or ending (a terminated
 * backend, a database restart) marks the lease lost, never throws: the caller stops appending
 * and stands by. Null = held elsewhere.
 */
export async function tryLockCluster(pool: Pool, cluster: string): Promise<ClusterLease | null> {
  const key = `hadron:indexer:${cluster}`;
  const client = new Client({ ...pool.options, application_name: `hadron-indexer-lock:${cluster}` });
  const lease = new ClusterLease(cluster, client, key);
  client.on('error', (e) => lease.lose(e));
  client.on('end', () => lease.lose(new Error('cluster lock connection ended')));
  try {
    await client.connect();
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
    if (!rows[0].ok) {
      await lease.release();
      return null;
    }
    // Waits for a fenced append of the previous holder still in flight (it holds the row FOR SHARE).
    const bumped = await client.query<{ epoch: string }>(
      `INSERT INTO indexer.lease (cluster, epoch, holder, acquired_at) VALUES ($1, 1, $2, now())
       ON CONFLICT (cluster) DO UPDATE SET epoch = indexer.lease.epoch + 1, holder = EXCLUDED.holder, acquired_at = now()
       RETURNING epoch`,
      [cluster, `${hostname()}:${process.pid}`],
    );
    lease.epoch = BigInt(bumped.rows[0].epoch);
    return lease;
  } catch (e) {
    await lease.release();
    throw e;
  }
}

/**
 * FENCING. Runs `fn` — an append to the event log and the indexer's writes that go with it (the
 * cursor commit) — in one transaction on this database that first takes the cluster's lease row
 * FOR SHARE and checks that its epoch is still the lease's. The row lock is held until `fn` has
 * finished (the log's append acknowledged, on Kafka too) and the cursor committed. A process that
 * takes the cluster lock bumps the epoch with an UPDATE of that row, which waits for the old
 * holder's fenced transaction in flight; the old holder's next one sees the new epoch and is
 * refused. So the appends of two holders never overlap: every append of epoch N is acknowledged
 * before the first append of epoch N+1 starts. A lease whose lock connection is lost is refused
 * at once, and a loss during `fn` rolls the cursor back (the events appended are re-derived, same
 * ids, by whoever holds the cluster next). Limits: README "Only one indexer appends".
 */
export async function fenced<T>(lease: ClusterLease, fn: (db: FencedTx) => Promise<T>, tx: (fn: (db: PoolClient) => Promise<T>) => Promise<T>): Promise<T> {
  lease.check();
  return tx(async (db) => {
    const { rows } = await db.query<{ epoch: string }>('SELECT epoch FROM indexer.lease WHERE cluster = $1 FOR SHARE', [lease.cluster]);
    const current = rows[0] === undefined ? null : BigInt(rows[0].epoch);
    if (current !== lease.epoch)
      throw new LeaseLostError(`cluster ${lease.cluster}: lease epoch ${lease.epoch} superseded by ${current ?? 'none'}; not appending`);
    lease.check();
    const out = await fn(db);
    lease.check();
    return out;
  });
}
