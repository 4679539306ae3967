import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@hadron/platform/logging/logger';
import type { ApiConfig } from '../api.config';
import { ReadDb } from '../database/read-db';
import { API_CONFIG, API_LOGGER } from '../http/tokens';
import { PoolListSnapshot } from '../pools/pool-list/pool-list.snapshot';

export interface ProjectionStatus {
  component: string;
  lag: number;
  age_s: number;
  ok: boolean;
}

export interface Readiness {
  ready: boolean;
  detail: {
    database: 'ok' | 'unreachable';
    projections: ProjectionStatus[];
    pool_list: { loaded: boolean; pools: number; age_s: number | null };
    reasons: string[];
  };
}

/** Lags the projector publishes (component_status); ages measured by the database's own clock. */
const STATUS_SQL = `SELECT component, lag::text AS lag, extract(epoch FROM now() - updated_at)::float8 AS age_s
  FROM component_status WHERE component LIKE 'projector:%' ORDER BY component`;

/**
 * Ready = the database answers, at least one projector has published its status, every
 * `projector:*` lag is <= READY_MAX_LAG and was published within READY_MAX_STALENESS_S, and the
 * pool list is loaded.
 */
@Injectable()
export class ReadinessCheck {
  constructor(
    private readonly db: ReadDb,
    private readonly snapshot: PoolListSnapshot,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly log: Logger,
  ) {}

  async check(): Promise<Readiness> {
    const reasons: string[] = [];
    const poolList = this.snapshot.status();
    if (!poolList.loaded) reasons.push('pool list not loaded');
    let rows: Array<{ component: string; lag: string; age_s: number }>;
    try {
      rows = await this.db.query('api-readiness', STATUS_SQL);
    } catch (e) {
      this.log.warn({ err: e }, 'readiness: database query failed');
      return { ready: false, detail: { database: 'unreachable', projections: [], pool_list: poolList, reasons: [...reasons, 'database unreachable'] } };
    }
    const maxLag = BigInt(this.config.READY_MAX_LAG);
    const projections = rows.map((r) => {
      const lagOk = BigInt(r.lag) <= maxLag;
      const fresh = r.age_s <= this.config.READY_MAX_STALENESS_S;
      if (!lagOk) reasons.push(`${r.component} lag ${r.lag} > ${this.config.READY_MAX_LAG}`);
      if (!fresh) reasons.push(`${r.component} status is ${Math.round(r.age_s)} s old (> ${this.config.READY_MAX_STALENESS_S} s)`);
      return { component: r.component, lag: Number(r.lag), age_s: Math.round(r.age_s * 10) / 10, ok: lagOk && fresh };
    });
    if (projections.length === 0) reasons.push('no projector has published its status yet');
    return { ready: reasons.length === 0, detail: { database: 'ok', projections, pool_list: poolList, reasons } };
  }
}
