import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '@hadron/platform/database/pool';
import type { TokenMetadata } from '@hadron/contracts';
import type { PoolStatic } from '../discovery/pool-accounts';
import type { AccountsSnapshot } from '../discovery/pool-reader';
import type { PoolRecord, TrackedState } from '../pipeline/pool-state';
import { ClusterLease, fenced, tryLockCluster, type FencedTx } from './cluster-lease';

export { ClusterLease, LeaseLostError, type FencedTx } from './cluster-lease';

/**
 * Persistence of the indexer's progress (tables in store/migrations). Raw SQL on the hot path;
 * the TypeORM entities describe the same tables for the migration drift check.
 */

/** A pool found by a snapshot and not yet published (PoolDiscovered comes with the cycle's events). */
export interface NewPool {
  static: PoolStatic;
  tokens: { x: TokenMetadata; y: TokenMetadata };
  /** Oracle state in effect before the range (the last updates before it), else unknown. */
  tracked: TrackedState;
}

/**
 * A unit of work: everything up to `targetSlot`, attributed against one account snapshot. Persisted
 * before any of its events is appended, so a restart re-derives exactly the same events.
 */
export interface CycleRecord {
  targetSlot: number;
  targetBlockTime: number | null;
  /** lookahead: one chunk, changes placed at their writing transaction; at-target: many chunks, changes placed at targetSlot. */
  mode: 'lookahead' | 'at-target';
  snapshot: AccountsSnapshot | null;
  newPools: Record<string, NewPool>;
  /** Set on the first run only: where the backfill begins. */
  rangeStartSlot: number | null;
  rangeStartTime: number | null;
  /** at-target: PoolDiscovered of the new pools already appended. */
  discoveryPublished: boolean;
  /** Pools held when the cycle began (mint not readable): a resumed cycle sets their part aside too. */
  heldPools?: Record<string, PoolStatic>;
}

export interface ProgramCursor {
  slot: number;
  signature: string;
}

export interface ClusterProgress {
  throughSlot: number | null;
  lastSignature: string | null;
  startSlot: number | null;
  backfillDone: boolean;
  cycle: CycleRecord | null;
  programCursors: Map<string, ProgramCursor>;
  pools: Map<string, PoolRecord>;
}

export interface GapRow {
  signature: string;
  slot: number;
  txIndex: number | null;
  /** Later re-tries so far (each one runs the full RPC retry policy). */
  attempts: number;
  lastError: string;
  /** Config → state in effect at the gap's position. */
  state: Record<string, TrackedState>;
  /** Programs whose listing named it (a transaction belongs to the pools of its programs). */
  programs?: string[];
  blockTime?: number | null;
}

/** A transaction of a held pool (mint not readable yet), replayed once the pool is announced. */
export interface HeldTx {
  pool: string;
  signature: string;
  slot: number;
  /** Chain order within the slot. */
  position: number;
  txIndex: number | null;
  blockTime: number | null;
}

/** A row of indexer.problem: something that yielded no event (or less than one), and why. Columns event_id and pool (insertProblems maps them). */
export interface RecordedProblem {
  code: string;
  message: string;
  eventId: string;
  poolConfig: string | null;
  slot: number;
}

export interface Commit {
  throughSlot: number | null;
  lastSignature: string | null;
  startSlot: number | null;
  backfillDone: boolean;
  /** The cycle still in progress after this commit, or null when it completed. */
  cycle: CycleRecord | null;
  programCursors: ReadonlyMap<string, ProgramCursor>;
  pools: readonly PoolRecord[];
  gaps: readonly GapRow[];
  problems: readonly RecordedProblem[];
  /** Transactions of held pools in this chunk. */
  held?: readonly HeldTx[];
  /** Held pools announced (their held transactions replayed): their rows go. */
  released?: readonly string[];
}

export class IndexerStore {
  constructor(private readonly pool: Pool) {}

  async load(cluster: string): Promise<ClusterProgress> {
    const [cursor, programs, pools] = await Promise.all([
      this.pool.query<{
        through_slot: string | null;
        last_signature: string | null;
        start_slot: string | null;
        backfill_done: boolean;
        cycle: CycleRecord | null;
      }>('SELECT through_slot, last_signature, start_slot, backfill_done, cycle FROM indexer.cluster_cursor WHERE cluster = $1', [cluster]),
      this.pool.query<{ program_id: string; slot: string; signature: string }>(
        'SELECT program_id, slot, signature FROM indexer.program_cursor WHERE cluster = $1',
        [cluster],
      ),
      this.pool.query<{ config: string; record: PoolRecord }>('SELECT config, record FROM indexer.pool WHERE cluster = $1 ORDER BY config', [cluster]),
    ]);
    const row = cursor.rows[0];
    return {
      throughSlot: row?.through_slot === null || row === undefined ? null : Number(row.through_slot),
      lastSignature: row?.last_signature ?? null,
      startSlot: row?.start_slot === null || row === undefined ? null : Number(row.start_slot),
      backfillDone: row?.backfill_done ?? false,
      cycle: row?.cycle ?? null,
      programCursors: new Map(programs.rows.map((p) => [p.program_id, { slot: Number(p.slot), signature: p.signature }])),
      pools: new Map(pools.rows.map((p) => [p.config, p.record])),
    };
  }

  /** Records the cycle about to run (before any of its events is appended). */
  async saveCycle(cluster: string, cycle: CycleRecord | null, db: Pool | PoolClient = this.pool): Promise<void> {
    await db.query(
      `INSERT INTO indexer.cluster_cursor (cluster, cycle, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (cluster) DO UPDATE SET cycle = EXCLUDED.cycle, updated_at = now()`,
      [cluster, cycle === null ? null : JSON.stringify(cycle)],
    );
  }

  /** Cursor, pool state, gaps and problems of one processed chunk: all or nothing. */
  async commit(cluster: string, c: Commit, outer?: PoolClient): Promise<void> {
    await this.tx(async (db) => {
      await db.query(
        `INSERT INTO indexer.cluster_cursor (cluster, through_slot, last_signature, start_slot, backfill_done, cycle, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())
         ON CONFLICT (cluster) DO UPDATE SET through_slot = EXCLUDED.through_slot, last_signature = EXCLUDED.last_signature, start_slot = EXCLUDED.start_slot,
           backfill_done = EXCLUDED.backfill_done, cycle = EXCLUDED.cycle, updated_at = now()`,
        [cluster, c.throughSlot, c.lastSignature, c.startSlot, c.backfillDone, c.cycle === null ? null : JSON.stringify(c.cycle)],
      );
      for (const [programId, p] of c.programCursors) {
        await db.query(
          `INSERT INTO indexer.program_cursor (cluster, program_id, slot, signature, updated_at) VALUES ($1, $2, $3, $4, now())
           ON CONFLICT (cluster, program_id) DO UPDATE SET slot = EXCLUDED.slot, signature = EXCLUDED.signature, updated_at = now()`,
          [cluster, programId, p.slot, p.signature],
        );
      }
      if (c.pools.length > 0) {
        await db.query(
          `INSERT INTO indexer.pool (cluster, config, program_id, discovered_slot, record, updated_at)
           SELECT $1, config, program_id, discovered_slot, record, now()
             FROM jsonb_to_recordset($2::jsonb) AS x(config text, program_id text, discovered_slot bigint, record jsonb)
           ON CONFLICT (cluster, config) DO UPDATE SET record = EXCLUDED.record, updated_at = now()`,
          [
            cluster,
            JSON.stringify(c.pools.map((p) => ({ config: p.static.config, program_id: p.static.programId, discovered_slot: p.discoveredSlot, record: p }))),
          ],
        );
      }
      if (c.gaps.length > 0) {
        await db.query(
          `INSERT INTO indexer.gap (cluster, signature, slot, tx_index, attempts, last_error, state, programs, first_seen_at, next_attempt_at)
           SELECT $1, signature, slot, tx_index, attempts, last_error, state, programs, now(), now()
             FROM jsonb_to_recordset($2::jsonb) AS x(signature text, slot bigint, tx_index integer, attempts integer, last_error text, state jsonb, programs text[])
           ON CONFLICT (cluster, signature) DO NOTHING`,
          [
            cluster,
            JSON.stringify(
              c.gaps.map((g) => ({
                signature: g.signature,
                slot: g.slot,
                tx_index: g.txIndex,
                attempts: g.attempts,
                last_error: g.lastError,
                state: g.state,
                programs: g.programs ?? [],
              })),
            ),
          ],
        );
      }
      await insertProblems(db, cluster, c.problems);
      if (c.held && c.held.length > 0) {
        await db.query(
          `INSERT INTO indexer.held_tx (cluster, pool, signature, slot, position, tx_index, block_time)
           SELECT $1, pool, signature, slot, position, tx_index, block_time
             FROM jsonb_to_recordset($2::jsonb) AS x(pool text, signature text, slot bigint, position integer, tx_index integer, block_time bigint)
           ON CONFLICT (cluster, pool, signature) DO NOTHING`,
          [
            cluster,
            JSON.stringify(
              c.held.map((h) => ({ pool: h.pool, signature: h.signature, slot: h.slot, position: h.position, tx_index: h.txIndex, block_time: h.blockTime })),
            ),
          ],
        );
      }
      if (c.released && c.released.length > 0)
        await db.query('DELETE FROM indexer.held_tx WHERE cluster = $1 AND pool = ANY($2::text[])', [cluster, c.released]);
    }, outer);
  }

  /** New token metadata of pools (a rename, appended as TokenMetadataChanged first). */
  async updatePoolTokens(cluster: string, pools: readonly PoolRecord[], db: Pool | PoolClient = this.pool): Promise<void> {
    if (pools.length === 0) return;
    await db.query(
      `UPDATE indexer.pool AS p SET record = jsonb_set(p.record, '{tokens}', x.tokens), updated_at = now()
         FROM jsonb_to_recordset($2::jsonb) AS x(config text, tokens jsonb)
        WHERE p.cluster = $1 AND p.config = x.config`,
      [cluster, JSON.stringify(pools.map((p) => ({ config: p.static.config, tokens: p.tokens })))],
    );
  }

  /** A held pool's transactions, in chain order. */
  async heldTxs(cluster: string, pool: string): Promise<HeldTx[]> {
    const { rows } = await this.pool.query<{ signature: string; slot: string; position: number; tx_index: number | null; block_time: string | null }>(
      'SELECT signature, slot, position, tx_index, block_time FROM indexer.held_tx WHERE cluster = $1 AND pool = $2 ORDER BY slot, position',
      [cluster, pool],
    );
    return rows.map((r) => ({
      pool,
      signature: r.signature,
      slot: Number(r.slot),
      position: r.position,
      txIndex: r.tx_index,
      blockTime: r.block_time === null ? null : Number(r.block_time),
    }));
  }

  /** Problems found outside a chunk (e.g. an account that does not read as assumed); one row per (event_id, code). */
  async recordProblems(cluster: string, problems: readonly RecordedProblem[]): Promise<void> {
    await insertProblems(this.pool, cluster, problems);
  }

  async dueGaps(cluster: string, limit: number): Promise<GapRow[]> {
    const { rows } = await this.pool.query<{
      signature: string;
      slot: string;
      tx_index: number | null;
      attempts: number;
      last_error: string;
      state: Record<string, TrackedState>;
      programs: string[];
    }>(
      `SELECT signature, slot, tx_index, attempts, last_error, state, programs FROM indexer.gap
        WHERE cluster = $1 AND next_attempt_at <= now() ORDER BY slot, signature LIMIT $2`,
      [cluster, limit],
    );
    return rows.map((r) => ({
      signature: r.signature,
      slot: Number(r.slot),
      txIndex: r.tx_index,
      attempts: r.attempts,
      lastError: r.last_error,
      state: r.state,
      programs: r.programs,
    }));
  }

  /** Open gaps per program that listed them. */
  async openGapsByProgram(cluster: string): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ program: string; n: string }>(
      'SELECT program, count(*) AS n FROM indexer.gap, unnest(programs) AS program WHERE cluster = $1 GROUP BY program',
      [cluster],
    );
    return new Map(rows.map((r) => [r.program, Number(r.n)]));
  }

  async gapCount(cluster: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM indexer.gap WHERE cluster = $1', [cluster]);
    return Number(rows[0].n);
  }

  /** A gap still failing: count the attempt and push its next try back. */
  async deferGap(cluster: string, signature: string, error: string, delayMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE indexer.gap SET attempts = attempts + 1, last_error = $3, next_attempt_at = now() + ($4::int * interval '1 millisecond') WHERE cluster = $1 AND signature = $2`,
      [cluster, signature, error, Math.round(delayMs)],
    );
  }

  /** Resolved gaps: their events are durable; the rows (and any new problems) go. */
  async resolveGaps(cluster: string, signatures: readonly string[], problems: readonly RecordedProblem[], outer?: PoolClient): Promise<void> {
    await this.tx(async (db) => {
      await db.query('DELETE FROM indexer.gap WHERE cluster = $1 AND signature = ANY($2::text[])', [cluster, signatures]);
      await insertProblems(db, cluster, problems);
    }, outer);
  }

  async problemCount(cluster: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: string }>('SELECT count(*) AS n FROM indexer.problem WHERE cluster = $1', [cluster]);
    return Number(rows[0].n);
  }

  /** The cluster lock (cluster-lease.ts): null = held elsewhere. */
  /**
   * The genesis hash the cluster's index was built from: `genesisHash` itself the first time (pinned
   * in `db`, a fenced transaction, so only the cluster's current indexer pins), else the one pinned.
   */
  async pinnedGenesis(cluster: string, genesisHash: string, db: FencedTx): Promise<string> {
    const { rows } = await db.query<{ genesis_hash: string }>(
      `WITH pinned AS (
         INSERT INTO indexer.chain (cluster, genesis_hash) VALUES ($1, $2) ON CONFLICT (cluster) DO NOTHING RETURNING genesis_hash)
       SELECT genesis_hash FROM pinned UNION ALL SELECT genesis_hash FROM indexer.chain WHERE cluster = $1`,
      [cluster, genesisHash],
    );
    return rows[0].genesis_hash;
  }

  tryLockCluster(cluster: string): Promise<ClusterLease | null> {
    return tryLockCluster(this.pool, cluster);
  }

  /** FENCING (cluster-lease.ts): `fn` runs in one transaction, only while `lease` is the cluster's current one. */
  fenced<T>(lease: ClusterLease, fn: (db: FencedTx) => Promise<T>): Promise<T> {
    return fenced(lease, fn, (f) => this.tx(f));
  }

  /** In `outer` (a fenced transaction) when given, else in a transaction of its own. */
  private async tx<T>(fn: (db: PoolClient) => Promise<T>, outer?: PoolClient): Promise<T> {
    return outer ? fn(outer) : inTransaction(this.pool, fn);
  }
}

/** Problem rows, one per (event_id, code): a problem seen again (a chunk retried, a gap re-fetched) is kept once. */
async function insertProblems(db: Pool | PoolClient, cluster: string, problems: readonly RecordedProblem[]): Promise<void> {
  if (problems.length === 0) return;
  await db.query(
    `INSERT INTO indexer.problem (cluster, event_id, code, pool, slot, message)
     SELECT $1, event_id, code, pool, slot, message FROM jsonb_to_recordset($2::jsonb) AS x(event_id text, code text, pool text, slot bigint, message text)
     ON CONFLICT (cluster, event_id, code) DO NOTHING`,
    [cluster, JSON.stringify(problems.map((p) => ({ event_id: p.eventId, code: p.code, pool: p.poolConfig, slot: p.slot, message: p.message })))],
  );
}
