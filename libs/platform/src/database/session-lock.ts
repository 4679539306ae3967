import type { Pool, PoolClient } from 'pg';

/**
 * A session advisory lock held on a connection of its own: one holder across processes until it
 * releases the lock, or until its connection (or process) dies and the lock goes with it.
 * `client` is that connection, for work that must run while the lock is held.
 */
export class SessionLock {
  private constructor(
    readonly client: PoolClient,
    readonly key: string,
  ) {}

  /** Takes the lock on `key` (hashed with hashtext) if nobody holds it; null when someone does. */
  static async tryAcquire(pool: Pool, key: string): Promise<SessionLock | null> {
    const client = await pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
      if (rows[0].ok) return new SessionLock(client, key);
    } catch (e) {
      client.release(e as Error);
      throw e;
    }
    client.release();
    return null;
  }

  /** Unlocks and returns the connection to the pool. */
  async release(): Promise<void> {
    await this.client.query('SELECT pg_advisory_unlock(hashtext($1))', [this.key]).catch(() => undefined);
    this.client.release();
  }

  /** The connection broke: the lock went with it; the connection is discarded, not reused. */
  discard(error: Error): void {
    this.client.release(error);
  }
}
