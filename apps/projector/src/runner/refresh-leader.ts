import { SessionLock } from '@hadron/platform/database/session-lock';
import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import type { Pool } from 'pg';
import { READ_VIEWS_LOCK } from '../builds/build-objects';

/**
 * One projector instance runs a projection's wall-clock refresh (24 h stats), whatever the number
 * of replicas: the first to take a session advisory lock keeps it, on a connection it holds, until
 * it stops or dies; a standby takes over on its next tick. Each refresh runs in a transaction that
 * holds the read-views lock shared, so a build switch (exclusive) never interleaves with it.
 */
export class RefreshLeader {
  private lock?: SessionLock;
  private readonly onError = (e: Error) => this.drop(e);

  constructor(
    private readonly pool: Pool,
    private readonly projection: string,
    private readonly log: Logger,
  ) {}

  get leading(): boolean {
    return this.lock !== undefined;
  }

  /** Runs `work` in a transaction if this instance is (or now becomes) the leader; false otherwise. */
  async run(work: (tx: SqlTx) => Promise<void>): Promise<boolean> {
    const lock = this.lock ?? (await this.lead());
    if (!lock) return false;
    const c = lock.client;
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
    const lock = this.lock;
    this.lock = undefined;
    if (!lock) return;
    lock.client.off('error', this.onError);
    await lock.release();
  }

  private async lead(): Promise<SessionLock | undefined> {
    const lock = await SessionLock.tryAcquire(this.pool, `hadron:projector:refresh:${this.projection}`);
    if (!lock) return undefined;
    lock.client.on('error', this.onError);
    this.lock = lock;
    this.log.info({ projection: this.projection }, 'this instance runs the wall-clock refresh');
    return lock;
  }

  /** The connection broke: the lock went with it; lead again later. */
  private drop(e: Error): void {
    const lock = this.lock;
    this.lock = undefined;
    if (!lock) return;
    lock.client.off('error', this.onError);
    lock.discard(e);
  }
}
