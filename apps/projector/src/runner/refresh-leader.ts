import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import type { Pool, PoolClient } from 'pg';
import { READ_VIEWS_LOCK } from '../builds/build-objects';

/**
 * One projector instance runs a projection's wall-clock refresh (24 h stats), whatever the number
 * of replicas: the first to take a session advisory lock keeps it, on a connection it holds, until
 * it stops or dies; a standby takes over on its next tick. Each refresh runs in a transaction that
 * holds the read-views lock shared, so a build switch (exclusive) never interleaves with it.
 */
export class RefreshLeader {
  private client?: PoolClient;
  private readonly onError = (e: Error) => this.drop(e);

  constructor(
    private readonly pool: Pool,
    private readonly projection: string,
    private readonly log: Logger,
  ) {}

  get leading(): boolean {
    return this.client !== undefined;
  }

  /** Runs `work` in a transaction if this instance is (or now becomes) the leader; false otherwise. */
  async run(work: (tx: SqlTx) => Promise<void>): Promise<boolean> {
    const c = this.client ?? (await this.lead());
    if (!c) return false;
    try {
      await c.query('BEGIN');
      await c.query(`SELECT pg_advisory_xact_lock_shared(${READ_VIEWS_LOCK})`);
      await work(c);
      await c.query('COMMIT');
      return true;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => this.drop(e as Error));
      throw e;
    }
  }

  async release(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    c.off('error', this.onError);
    await c.query('SELECT pg_advisory_unlock(hashtext($1))', [this.key()]).catch(() => undefined);
    c.release();
  }

  private async lead(): Promise<PoolClient | undefined> {
    const c = await this.pool.connect();
    try {
      const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [this.key()]);
      if (rows[0].ok) {
        c.on('error', this.onError);
        this.client = c;
        this.log.info({ projection: this.projection }, 'this instance runs the wall-clock refresh');
        return c;
      }
    } catch (e) {
      c.release(e as Error);
      throw e;
    }
    c.release();
    return undefined;
  }

  /** The connection broke: the lock went with it; lead again later. */
  private drop(e: Error): void {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    c.off('error', this.onError);
    c.release(e);
  }

  private key(): string {
    return `hadron:projector:refresh:${this.projection}`;
  }
}
