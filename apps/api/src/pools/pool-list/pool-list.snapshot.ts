import { Inject, Injectable, ServiceUnavailableException, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Cluster } from '@hadron/contracts/api';
import type { Logger } from '@hadron/platform/logging/logger';
import type { ApiConfig } from '../../api.config';
import { ReadDb } from '../../database/read-db';
import { API_CONFIG, API_LOGGER } from '../../http/tokens';
import { ApiMetrics } from '../../metrics/api-metrics';
import { buildSnapshot, poolKey, type PoolEntry, type PoolListSnapshotData, type PoolRow } from './pool-list';

/** The columns of a PoolRow (the pool list and the one-pool lookup read the same). */
export const POOL_COLUMNS = `cluster, address,
    token_x_mint, token_x_symbol, token_x_name, token_x_decimals, token_x_icon,
    token_y_mint, token_y_symbol, token_y_name, token_y_decimals, token_y_icon,
    token_x_amount, token_y_amount, authority, quoting_authority, oracle_mode, pool_state,
    midprice_q32, spread_factor_q32, tvl_q32, volume_24h_q32, fees_24h_q32`;

const LOAD_SQL = `SELECT ${POOL_COLUMNS} FROM read.pools`;

/**
 * "Did anything the pool list shows change?" in one cheap statement: the view's identity (a build
 * switch recreates it), how far the served builds have applied the log and when they last
 * committed (read.projection_status, which the projector publishes: its position advances in the
 * same transaction as the rows), and the 24 h stats window the projector refreshes every few seconds.
 */
const FINGERPRINT_SQL = `SELECT concat_ws('|',
    to_regclass('read.pools')::oid,
    (SELECT sum(position) || ':' || coalesce(max(applied_at)::text, '-') FROM read.projection_status),
    (SELECT count(*) || ':' || coalesce(max(stats_24h_window_end)::text, '-') FROM read.pools)) AS fp`;

/** Reload at least this often even when the fingerprint did not move (writes by other tools). */
const MAX_AGE_MS = 60_000;

/**
 * The in-memory pool list (DESIGN §6): loaded before the app serves, then polled every
 * POOL_LIST_REFRESH_MS; reloaded when the fingerprint moves. A failed refresh keeps serving the
 * last snapshot (readiness reports its age). If the first load fails (e.g. the projector has not
 * created the `read` schema yet) the app still starts: the list answers 503 and readiness says
 * why, until a later attempt succeeds.
 */
@Injectable()
export class PoolListSnapshot implements OnModuleInit, OnModuleDestroy {
  private data: PoolListSnapshotData | null = null;
  private fingerprint: string | null = null;
  private loadedAtMs = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failing: string | null = null;
  /** Moves on every reload (the response cache keys on it: a pool's entry may have changed). */
  private loads = 0;

  constructor(
    private readonly db: ReadDb,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly log: Logger,
    metrics: ApiMetrics,
  ) {
    metrics.gauge('hadron_api_pool_list_pools', 'Pools in the in-memory pool list', () => this.data?.pools ?? 0);
    metrics.gauge('hadron_api_pool_list_age_seconds', 'Seconds since the pool list was last loaded', () =>
      this.loadedAtMs ? (Date.now() - this.loadedAtMs) / 1000 : -1,
    );
  }

  async onModuleInit(): Promise<void> {
    await this.refresh().catch((e: unknown) => this.failed(e));
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  current(): PoolListSnapshotData {
    if (!this.data) throw new ServiceUnavailableException('pool list not loaded yet');
    return this.data;
  }

  find(cluster: Cluster, address: string): PoolEntry | undefined {
    return this.data?.byAddress.get(poolKey(cluster, address));
  }

  get generation(): number {
    return this.loads;
  }

  status(): { loaded: boolean; pools: number; age_s: number | null } {
    return { loaded: this.data !== null, pools: this.data?.pools ?? 0, age_s: this.loadedAtMs ? (Date.now() - this.loadedAtMs) / 1000 : null };
  }

  /** Checks the fingerprint now and reloads if it moved (also used by tests). */
  async refresh(): Promise<void> {
    const fp = await this.readFingerprint();
    if (this.data === null || fp !== this.fingerprint || Date.now() - this.loadedAtMs > MAX_AGE_MS) await this.reload(fp);
    if (this.failing !== null) this.log.info('pool list loaded again');
    this.failing = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.refresh()
        .catch((e: unknown) => this.failed(e))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.config.POOL_LIST_REFRESH_MS);
    this.timer.unref();
  }

  /** Logged once per distinct failure (it is retried every POOL_LIST_REFRESH_MS). */
  private failed(e: unknown): void {
    const message = (e as Error)?.message ?? String(e);
    if (message !== this.failing) {
      this.log.warn(
        { err: message, loaded: this.data !== null },
        this.data ? 'pool list refresh failed; serving the previous snapshot' : 'pool list not loaded yet; retrying',
      );
    }
    this.failing = message;
  }

  private async readFingerprint(): Promise<string> {
    const rows = await this.db.query<{ fp: string }>('api-pool-list-fingerprint', FINGERPRINT_SQL);
    return rows[0]?.fp ?? '';
  }

  private async reload(fingerprint: string): Promise<void> {
    const started = Date.now();
    const rows = await this.db.queryOnce<PoolRow>(LOAD_SQL);
    this.data = buildSnapshot(rows, this.data ?? undefined);
    this.fingerprint = fingerprint;
    this.loads++;
    this.loadedAtMs = Date.now();
    this.log.debug({ pools: rows.length, ms: this.loadedAtMs - started }, 'pool list loaded');
  }
}
