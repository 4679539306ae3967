import { assertNever, type EventOf } from '@hadron/contracts';
import { chainPosition, compareChainPositions, type ChainPosition } from '@hadron/domain';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import type { ProjectionDefinition } from '../../projection';
import { BatchIds, refuseChangedDuplicates } from '../../sql/duplicates';
import { FactColumns } from '../../sql/fact-columns';
import { sqlBucket } from '../../sql/identifiers';
import { numberArray, textArray } from '../../sql/pg-array';
import { assertApplicable } from '../event-checks';
import { midpriceProjectionV1 } from './midprice-v1.projection';
import { midpriceSchemaV2 } from './midprice.schema';

interface Source {
  value: string | null;
  pos: ChainPosition | null;
}
interface PoolState {
  cluster: string;
  pool: string;
  /** Latest spread by chain position from updates (set by them, or in effect right after them). */
  update: Source;
  /** Latest spread by chain position read by a PoolDiscovered / PoolConfigChanged snapshot. */
  snapshot: Source;
}
type OracleFact = EventOf<'MidpriceUpdated'> | EventOf<'PoolDiscovered'> | EventOf<'PoolConfigChanged'>;

/** Spec: a midprice sample is an UpdateMidprice or UpdateMidpriceAndSpreadFactor (tags 5 and 10). */
const SETS_MIDPRICE = new Set(['UpdateMidprice', 'UpdateMidpriceAndBaseSpread']);

/** What must be equal for two copies of one point to be the same fact (not the carried spread). */
const POINT_IDENTITY = [
  'block_time',
  'slot',
  'tx_index',
  'ix_index',
  'inner_index',
  'signature',
  'instruction',
  'sequence',
  'midprice_q32',
  "(CASE WHEN $.instruction = 'UpdateMidpriceAndBaseSpread' THEN $.spread_factor_q32 END)",
];

/**
 * `midprice` v2: one point per update that set the midprice (tags 5, 10), plus the last point of
 * each minute and hour. The spread of a tag-5 point is the indexer's `spreadFactorAfterQ32` when
 * the event carries it, else the latest spread from a source positioned strictly before the point
 * (an update, or a snapshot read before it), else null: a backfill publishes PoolDiscovered (the
 * oracle read at the end of the backfill) before the history, and its spread must not leak back
 * into that history. Spread-only updates (tag 9) only move the carried spread.
 * Per batch: one read of the carried state of the pools in the batch, one write statement.
 */
export function createMidpriceHandler(schema: string): BatchHandler {
  const loadSql = `SELECT s.cluster, s.pool, s.spread_factor_q32, s.spread_factor_pos, s.snapshot_spread_factor_q32, s.snapshot_spread_factor_pos
    FROM ${schema}.midprice_state s JOIN unnest($1::text[], $2::text[]) AS k(cluster, pool) ON s.cluster = k.cluster AND s.pool = k.pool`;
  const sql = writeSql(schema);
  return async (events, tx) => {
    const facts: OracleFact[] = [];
    for (const { event } of events) {
      assertApplicable(event);
      switch (event.type) {
        case 'MidpriceUpdated':
        case 'PoolDiscovered':
        case 'PoolConfigChanged':
          facts.push(event);
          break;
        case 'SwapExecuted':
        case 'VaultBalancesChanged':
        case 'FeeSplitChanged':
          break;
        default:
          assertNever(event);
      }
    }
    if (facts.length === 0) return;

    const states = new Map<string, PoolState>();
    for (const f of facts) {
      const key = `${f.cluster} ${f.pool}`;
      if (!states.has(key)) states.set(key, { cluster: f.cluster, pool: f.pool, update: { value: null, pos: null }, snapshot: { value: null, pos: null } });
    }
    const loaded = await tx.query<{
      cluster: string;
      pool: string;
      spread_factor_q32: string | null;
      spread_factor_pos: string[] | null;
      snapshot_spread_factor_q32: string | null;
      snapshot_spread_factor_pos: string[] | null;
    }>(loadSql, [textArray([...states.values()].map((s) => s.cluster)), textArray([...states.values()].map((s) => s.pool))]);
    for (const r of loaded.rows) {
      const st = states.get(`${r.cluster} ${r.pool}`)!;
      st.update = { value: r.spread_factor_q32, pos: toPosition(r.spread_factor_pos) };
      st.snapshot = { value: r.snapshot_spread_factor_q32, pos: toPosition(r.snapshot_spread_factor_pos) };
    }

    // In log order: a point sees exactly the sources that arrived before it, whatever the batching.
    const rows = new FactColumns();
    const p = { instruction: [] as string[], sequence: [] as string[], mid: [] as (string | null)[], spread: [] as (string | null)[] };
    const ids = new BatchIds();
    for (const f of facts) {
      const st = states.get(`${f.cluster} ${f.pool}`)!;
      const pos = chainPosition(f);
      if (f.type !== 'MidpriceUpdated') {
        advance(st.snapshot, f.data.spreadFactorQ32, pos);
        continue;
      }
      const d = f.data;
      const after = d.spreadFactorQ32 ?? d.spreadFactorAfterQ32 ?? null;
      if (!SETS_MIDPRICE.has(d.instruction)) {
        advance(st.update, after, pos);
        continue;
      }
      const spread = after ?? inEffectBefore(st, pos);
      if (!ids.first(f.id, fingerprint(f))) continue;
      advance(st.update, spread, pos);
      rows.push(f, pos);
      p.instruction.push(d.instruction);
      p.sequence.push(d.sequence);
      p.mid.push(d.midpriceQ32);
      p.spread.push(spread);
    }
    const state = [...states.values()].map((s) => ({
      cluster: s.cluster,
      pool: s.pool,
      spread_factor_q32: s.update.value,
      spread_factor_pos: fromPosition(s.update.pos),
      snapshot_spread_factor_q32: s.snapshot.value,
      snapshot_spread_factor_pos: fromPosition(s.snapshot.pos),
    }));
    const [t, n] = [textArray, numberArray];
    const params = [...rows.params(), t(p.instruction), n(p.sequence), n(p.mid), n(p.spread)];
    const { rows: out } = await tx.query<{ inserted: number }>(sql, [...params, JSON.stringify(state)]);
    if (out[0].inserted < rows.size) await refuseChangedDuplicates(tx, `${schema}.midprice_points`, inputSql(), POINT_IDENTITY, params);
  };
}

/** The spread in effect just before `pos`, from the sources seen so far: never one positioned at or after it. */
function inEffectBefore(st: PoolState, pos: ChainPosition): string | null {
  const before = [st.update, st.snapshot].filter((s) => s.value !== null && s.pos !== null && compareChainPositions(s.pos, pos) < 0);
  if (before.length === 0) return null;
  return before.reduce((a, b) => (compareChainPositions(a.pos!, b.pos!) >= 0 ? a : b)).value;
}

/** Latest chain position wins; an equal position (same fact delivered again) re-applies the same value. */
function advance(field: Source, value: string | null | undefined, pos: ChainPosition): void {
  if (value === null || value === undefined) return;
  if (field.pos === null || compareChainPositions(pos, field.pos) >= 0) {
    field.value = value;
    field.pos = pos;
  }
}

function fingerprint(e: EventOf<'MidpriceUpdated'>): string {
  const d = e.data;
  return JSON.stringify([e.blockTime, e.slot, e.txIndex, e.ixIndex, e.innerIndex, e.signature, d.instruction, d.sequence, d.midpriceQ32, d.spreadFactorQ32]);
}

function toPosition(a: string[] | null): ChainPosition | null {
  return a ? { slot: Number(a[0]), txIndex: Number(a[1]), ixIndex: Number(a[2]), innerIndex: Number(a[3]) } : null;
}

function fromPosition(p: ChainPosition | null): number[] | null {
  return p ? [p.slot, p.txIndex, p.ixIndex, p.innerIndex] : null;
}

function inputSql(): string {
  return `SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::int4[], $8::int4[], $9::int4[],
                         $10::text[], $11::text[], $12::numeric[], $13::numeric[], $14::numeric[])
      AS t(id, cluster, pool, ts, block_time, slot, tx_index, ix_index, inner_index, signature, instruction, sequence,
           midprice_q32, spread_factor_q32)`;
}

function writeSql(s: string): string {
  const lastPoint = (table: string, bucketCol: string, from: string, size: number) => `
    INSERT INTO ${s}.${table} AS m (cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature,
                                    midprice_q32, spread_factor_q32, point_id)
    SELECT DISTINCT ON (cluster, pool, bucket) cluster, pool, bucket, ts, slot, tx_index, ix_index, inner_index, signature,
           midprice_q32, spread_factor_q32, id
      FROM (SELECT *, ${sqlBucket('ts', size)} AS bucket FROM ${from}) x
     ORDER BY cluster, pool, bucket, slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, id DESC
    ON CONFLICT (cluster, pool, ${bucketCol}) DO UPDATE SET
      ts = EXCLUDED.ts, slot = EXCLUDED.slot, tx_index = EXCLUDED.tx_index, ix_index = EXCLUDED.ix_index,
      inner_index = EXCLUDED.inner_index, signature = EXCLUDED.signature, midprice_q32 = EXCLUDED.midprice_q32,
      spread_factor_q32 = EXCLUDED.spread_factor_q32, point_id = EXCLUDED.point_id
    WHERE (EXCLUDED.slot, EXCLUDED.tx_index, EXCLUDED.ix_index, EXCLUDED.inner_index, EXCLUDED.point_id)
        > (m.slot, m.tx_index, m.ix_index, m.inner_index, m.point_id)`;
  const newer = (f: string) => `(EXCLUDED.${f}_pos IS NOT NULL AND (t.${f}_pos IS NULL OR EXCLUDED.${f}_pos >= t.${f}_pos))`;
  const keep = (f: string) => [`${f}_q32`, `${f}_pos`].map((c) => `${c} = CASE WHEN ${newer(f)} THEN EXCLUDED.${c} ELSE t.${c} END`).join(', ');
  return `
  WITH input AS (${inputSql()}
  ), ins AS (
    -- No conflict target: the primary key and the unique (cluster, id) both make a copy a no-op.
    INSERT INTO ${s}.midprice_points (cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature,
                                      instruction, sequence, midprice_q32, spread_factor_q32)
    SELECT cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, instruction, sequence,
           midprice_q32, spread_factor_q32 FROM input
    ON CONFLICT DO NOTHING
    RETURNING cluster, pool, ts, id, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32
  ), minute_last AS (
    -- The last new point of each minute; the last of each hour is among them (hours are whole minutes).
    SELECT DISTINCT ON (cluster, pool, ${sqlBucket('ts', 60)}) *
      FROM ins ORDER BY cluster, pool, ${sqlBucket('ts', 60)}, slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, id DESC
  ), minute AS (${lastPoint('midprice_minute', 'minute_start', 'minute_last', 60)}
  ), hourly AS (${lastPoint('midprice_hourly', 'hour_start', 'minute_last', 3600)}
  ), state AS (
    INSERT INTO ${s}.midprice_state AS t (cluster, pool, spread_factor_q32, spread_factor_pos, snapshot_spread_factor_q32, snapshot_spread_factor_pos)
    SELECT cluster, pool, spread_factor_q32, spread_factor_pos, snapshot_spread_factor_q32, snapshot_spread_factor_pos
      FROM jsonb_to_recordset($15::jsonb) AS x(cluster text, pool text, spread_factor_q32 numeric(20,0), spread_factor_pos int8[],
                                               snapshot_spread_factor_q32 numeric(20,0), snapshot_spread_factor_pos int8[])
    ON CONFLICT (cluster, pool) DO UPDATE SET ${keep('spread_factor')}, ${keep('snapshot_spread_factor')}
  )
  SELECT count(*)::int AS inserted FROM ins`;
}

export const midpriceProjection: ProjectionDefinition = {
  name: 'midprice',
  schema: midpriceSchemaV2,
  eventTypes: ['MidpriceUpdated', 'PoolDiscovered', 'PoolConfigChanged'],
  createHandler: createMidpriceHandler,
  previousVersions: [midpriceProjectionV1],
};
