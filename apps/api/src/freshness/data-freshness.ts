import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Cluster } from '@hadron/contracts/api';
import type { Logger } from '@hadron/platform/logging/logger';
import type { ApiConfig } from '../api.config';
import { ReadDb } from '../database/read-db';
import { API_CONFIG, API_LOGGER } from '../http/tokens';
import type { AsOfDto } from './as-of.dto';
import { readIndexerStatus } from './indexer-status';

/** What each cluster's active indexer publishes about its progress (component_status `indexer:<cluster>`). */
const FRESHNESS_SQL = `SELECT component, detail FROM component_status WHERE component LIKE 'indexer:%'`;

export interface ClusterAsOf extends AsOfDto {
  /** Backfill finished: windows that ended before `time` are complete (no older history still to come). */
  backfillDone: boolean;
}

export const UNKNOWN_AS_OF: ClusterAsOf = { slot: null, time: null, lag_seconds: null, backfillDone: false };

/**
 * How current each cluster's data is, kept in memory for the freshness headers and `as_of`
 * fields: polled every POOL_LIST_REFRESH_MS (like the pool list), so a request never waits for it.
 * A failed poll keeps the last known values (readiness reports the database's state).
 */
@Injectable()
export class DataFreshness implements OnModuleInit, OnModuleDestroy {
  private byCluster = new Map<string, ClusterAsOf>();
  private published = '';
  private changes = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly db: ReadDb,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly log: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.refresh().catch((e: unknown) => this.log.debug({ err: (e as Error).message }, 'freshness not read yet'));
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Moves whenever what the indexers published changes (the response cache keys on it). */
  get generation(): number {
    return this.changes;
  }

  of(cluster: Cluster): ClusterAsOf {
    return this.byCluster.get(cluster) ?? UNKNOWN_AS_OF;
  }

  /** The `as_of` object of a response body. */
  asOf(cluster: Cluster): AsOfDto {
    const f = this.of(cluster);
    return { slot: f.slot, time: f.time, lag_seconds: f.lag_seconds };
  }

  /** Reads what the indexers published now (also used by tests). */
  async refresh(): Promise<void> {
    const rows = await this.db.query<{ component: string; detail: Record<string, unknown> | null }>('api-freshness', FRESHNESS_SQL);
    const next = new Map<string, ClusterAsOf>();
    for (const r of rows) {
      const s = readIndexerStatus(r.component, r.detail);
      next.set(s.cluster, { slot: s.cursorSlot, time: s.indexedBlockTime, lag_seconds: s.lagSeconds, backfillDone: s.backfillDone });
    }
    const published = JSON.stringify([...next]);
    // The map is replaced before the generation moves: a reader that saw the new generation sees the new values.
    this.byCluster = next;
    if (published !== this.published) {
      this.published = published;
      this.changes++;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.refresh()
        .catch((e: unknown) => this.log.debug({ err: (e as Error).message }, 'freshness refresh failed; keeping the last values'))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.config.POOL_LIST_REFRESH_MS);
    this.timer.unref();
  }
}
