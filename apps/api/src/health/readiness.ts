import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Logger } from '@hadron/platform/logging/logger';
import type { ApiConfig } from '../api.config';
import { ReadDb } from '../database/read-db';
import { API_CONFIG, API_LOGGER } from '../http/tokens';
import { INDEXER_COMPONENT_PREFIX, readIndexerStatus, type IndexerStatus } from '../freshness/indexer-status';
import { ApiMetrics } from '../metrics/api-metrics';
import { PoolListSnapshot } from '../pools/pool-list/pool-list.snapshot';
import { MISSING_READ_COLUMNS_SQL, readContractReason } from './read-contract';
import type { ClusterFreshnessDto, ReadinessDetailDto, ReplicaStatusDto } from './health.response.dto';
import { SHUTTING_DOWN, ShutdownState } from './shutdown-state';

/** What /health/ready says (the HTTP body maps `ready` to `status`); the shapes are the response DTOs'. */
export interface Readiness {
  ready: boolean;
  detail: ReadinessDetailDto;
}

/** How fresh a cluster's data is, from what its active indexer publishes (`indexer:<cluster>`). */
export type ClusterFreshness = ClusterFreshnessDto;
/** Where a read replica (DATABASE_READ_URL) is in replaying its primary's WAL. */
export type ReplicaStatus = ReplicaStatusDto;

/** What the indexer and the projector publish (component_status); ages by the database's own clock. */
const STATUS_SQL = `SELECT component, lag::text AS lag, detail, extract(epoch FROM now() - updated_at)::float8 AS age_s
  FROM component_status WHERE component LIKE 'projector:%' OR component LIKE 'indexer:%' ORDER BY component`;

/**
 * On a hot standby, how far replay is behind. now() − the last replayed commit's time grows while
 * the primary is idle, so with nothing received left to replay the lag is 0 (a replica cut off
 * from its primary shows as stale component_status instead: nothing new is published to it).
 */
const REPLICA_SQL = `SELECT pg_is_in_recovery() AS in_recovery, pg_last_wal_replay_lsn()::text AS replay_lsn, pg_last_wal_receive_lsn()::text AS receive_lsn,
    CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END AS paused,
    CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0
         ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8 AS replay_lag_s`;

interface ReplicaRow {
  in_recovery: boolean;
  replay_lsn: string | null;
  receive_lsn: string | null;
  paused: boolean;
  replay_lag_s: number;
}

/** Readiness answers within a second whatever the database does: a slower answer counts as unreachable. */
const STATUS_TIMEOUT_MS = 800;

interface StatusRow {
  component: string;
  lag: string;
  detail: Record<string, unknown> | null;
  age_s: number;
}

/**
 * Ready = the database answers (within 800 ms), every cluster's active indexer says it is ready
 * (backfilled, near the head, RPC answering, no gap — its own thresholds) and published so within
 * READY_MAX_STALENESS_S, the `read` schema holds this release's read contract (read-contract.ts:
 * an API upgraded before the projector's migrations ran is not ready, instead of answering 503 to
 * the queries that need them), at least one projector has published its status, every `projector:*`
 * lag is <= READY_MAX_LAG and was published within READY_MAX_STALENESS_S, a read replica (if the
 * API reads one) replays within READY_MAX_REPLICA_LAG_S of its primary, the pool list is
 * loaded, and the process is not shutting down (from SIGTERM on it is never ready again, while it
 * still serves through the grace period: see drainApiApp). The body says, per cluster, how fresh
 * the data is, in one process and in split mode alike: the indexer publishes it in the database.
 */
@Injectable()
export class ReadinessCheck {
  constructor(
    private readonly db: ReadDb,
    private readonly snapshot: PoolListSnapshot,
    private readonly shutdown: ShutdownState,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    @Inject(API_LOGGER) private readonly log: Logger,
    @Optional() metrics?: ApiMetrics,
  ) {
    if (config.DATABASE_READ_URL !== undefined) {
      metrics?.gauge(
        'hadron_api_replica_replay_lag_seconds',
        'Replay lag of the read replica (DATABASE_READ_URL) at the last readiness check; -1 before the first',
        () => this.replicaLagS ?? -1,
      );
    }
  }

  /** The replica's replay lag at the last check that reached it (the gauge above). */
  private replicaLagS: number | null = null;

  async check(): Promise<Readiness> {
    const reasons: string[] = [];
    if (this.shutdown.draining) reasons.push(SHUTTING_DOWN);
    const poolList = this.snapshot.status();
    if (!poolList.loaded) reasons.push('pool list not loaded');
    let rows: StatusRow[];
    let replicaRow: ReplicaRow | undefined;
    let missing: { missing: string }[];
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${STATUS_TIMEOUT_MS} ms`)), STATUS_TIMEOUT_MS)),
      );
      [rows, [replicaRow], missing] = await Promise.race([
        Promise.all([
          this.db.query<StatusRow>('api-readiness', STATUS_SQL),
          this.db.query<ReplicaRow>('api-readiness-replica', REPLICA_SQL),
          this.db.query<{ missing: string }>('api-readiness-contract', MISSING_READ_COLUMNS_SQL),
        ]),
        timeout,
      ]);
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'readiness: database query failed');
      return {
        ready: false,
        detail: { database: 'unreachable', replica: null, clusters: [], projections: [], pool_list: poolList, reasons: [...reasons, 'database unreachable'] },
      };
    } finally {
      clearTimeout(timer);
    }
    const contract = readContractReason(missing.map((m) => m.missing));
    if (contract) reasons.push(contract);
    // On a replica, component_status is the replica's copy: its ages also count replay delay.
    const replica: ReplicaStatus | null =
      replicaRow?.in_recovery === true
        ? {
            replay_lsn: replicaRow.replay_lsn,
            receive_lsn: replicaRow.receive_lsn,
            replay_lag_s: Math.round(replicaRow.replay_lag_s * 10) / 10,
            paused: replicaRow.paused,
          }
        : null;
    if (replica) this.replicaLagS = replica.replay_lag_s;
    if (replica && replica.replay_lag_s > this.config.READY_MAX_REPLICA_LAG_S) {
      reasons.push(
        `replica replay ${Math.round(replica.replay_lag_s)} s behind the primary (> ${this.config.READY_MAX_REPLICA_LAG_S} s)${replica.paused ? ', replay paused' : ''}`,
      );
    }
    const stale = (r: StatusRow) => r.age_s > this.config.READY_MAX_STALENESS_S;
    const staleReason = (r: StatusRow) => `${r.component} status is ${Math.round(r.age_s)} s old (> ${this.config.READY_MAX_STALENESS_S} s)`;
    const clusters = rows
      .filter((r) => r.component.startsWith(INDEXER_COMPONENT_PREFIX))
      .map((r): ClusterFreshness => {
        const s = readIndexerStatus(r.component, r.detail);
        const f: ClusterFreshness = {
          cluster: s.cluster,
          ready: s.ready,
          backfill_done: s.backfillDone,
          indexed_slot: s.cursorSlot,
          indexed_time: s.indexedBlockTime,
          head_slot: s.headSlot,
          lag_slots: s.slotLag,
          lag_seconds: s.lagSeconds,
          rpc_failing_seconds: s.rpcFailingSeconds ?? 0,
          age_s: Math.round(r.age_s * 10) / 10,
        };
        if (stale(r)) reasons.push(staleReason(r));
        else if (!f.ready) reasons.push(indexerReason(f, s));
        return f;
      });
    if (clusters.length === 0) reasons.push('no indexer has published its status yet');
    const maxLag = BigInt(this.config.READY_MAX_LAG);
    const projections = rows
      .filter((r) => r.component.startsWith('projector:'))
      .map((r) => {
        const lagOk = BigInt(r.lag) <= maxLag;
        const fresh = r.age_s <= this.config.READY_MAX_STALENESS_S;
        if (!lagOk) reasons.push(`${r.component} lag ${r.lag} > ${this.config.READY_MAX_LAG}`);
        if (!fresh) reasons.push(staleReason(r));
        return { component: r.component, lag: Number(r.lag), age_s: Math.round(r.age_s * 10) / 10, ok: lagOk && fresh };
      });
    if (projections.length === 0) reasons.push('no projector has published its status yet');
    return { ready: reasons.length === 0, detail: { database: 'ok', replica, clusters, projections, pool_list: poolList, reasons } };
  }
}

/** Why an indexer says it is not ready, from what it published (its own thresholds decided). */
function indexerReason(f: ClusterFreshness, s: IndexerStatus): string {
  const why: string[] = [];
  if (s.wrongChain) why.push(s.wrongChain);
  if (!f.backfill_done) why.push('backfilling');
  if (f.lag_slots !== null && f.lag_slots > 0) why.push(`${f.lag_slots} slots${f.lag_seconds !== null ? ` (${f.lag_seconds} s)` : ''} behind the head`);
  if (f.rpc_failing_seconds > 0) why.push(`RPC failing for ${Math.round(f.rpc_failing_seconds)} s`);
  if (s.gaps) why.push(`${s.gaps} transaction(s) in the gap ledger`);
  if (s.heldPools) why.push(`${s.heldPools} pool(s) held`);
  if (s.cycleFailures) why.push(`${s.cycleFailures} failed cycle(s) in a row`);
  return `indexer:${f.cluster} not ready${why.length ? `: ${why.join(', ')}` : ''}`;
}
