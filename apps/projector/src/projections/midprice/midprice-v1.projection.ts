import { assertNever, type EventOf } from '@hadron/contracts';
import { chainPosition, compareChainPositions, type ChainPosition } from '@hadron/domain';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import type { ProjectionDefinition } from '../../projection';
import { sqlBucket } from '../../sql/identifiers';
import { numberArray, textArray } from '../../sql/pg-array';
import { FactColumns } from '../../sql/fact-columns';
import { assertApplicable } from '../event-checks';
import { midpriceSchemaV1 } from './midprice.schema';

interface FieldState {
  value: string | null;
  pos: ChainPosition | null;
}
interface PoolState {
  cluster: string;
  pool: string;
  midprice: FieldState;
  spread: FieldState;
}
type OracleFact = EventOf<'MidpriceUpdated'> | EventOf<'PoolDiscovered'> | EventOf<'PoolConfigChanged'>;

/**
 * `midprice` v1 (released; frozen): one point per MidpriceUpdated, with the field its instruction
 * left null carried forward from the pool's latest known value by chain position (an earlier
 * update, or the oracle account read by a PoolDiscovered / PoolConfigChanged snapshot), plus the
 * last point of each minute and hour. Superseded by v2 (midprice.projection.ts): a snapshot
 * published before the history it follows gave historical points values from the future, and
 * spread-only updates made points. Kept so an active v1 build keeps consuming while v2 replays.
 */
export function createMidpriceHandlerV1(schema: string): BatchHandler {
  const loadSql = `SELECT s.cluster, s.pool, s.midprice_q32, s.midprice_pos, s.spread_factor_q32, s.spread_factor_pos
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
      if (!states.has(key)) states.set(key, { cluster: f.cluster, pool: f.pool, midprice: { value: null, pos: null }, spread: { value: null, pos: null } });
    }
    const loaded = await tx.query<{ cluster: string; pool: string; midprice_q32: string | null; midprice_pos: string[] | null; spread_factor_q32: string | null; spread_factor_pos: string[] | null }>(
      loadSql,
      [textArray([...states.values()].map((s) => s.cluster)), textArray([...states.values()].map((s) => s.pool))],
    );
    for (const r of loaded.rows) {
      const st = states.get(`${r.cluster} ${r.pool}`)!;
      st.midprice = { value: r.midprice_q32, pos: toPosition(r.midprice_pos) };
      st.spread = { value: r.spread_factor_q32, pos: toPosition(r.spread_factor_pos) };
    }

    const rows = new FactColumns();
    const p = { instruction: [] as string[], sequence: [] as string[], mid: [] as (string | null)[], spread: [] as (string | null)[] };
    const seen = new Set<string>();
    for (const f of facts) {
      const st = states.get(`${f.cluster} ${f.pool}`)!;
      const pos = chainPosition(f);
      advance(st.midprice, f.data.midpriceQ32, pos);
      advance(st.spread, f.data.spreadFactorQ32, pos);
      if (f.type !== 'MidpriceUpdated' || seen.has(f.id)) continue;
      seen.add(f.id);
      rows.push(f, pos);
      p.instruction.push(f.data.instruction);
      p.sequence.push(f.data.sequence);
      p.mid.push(f.data.midpriceQ32 ?? st.midprice.value);
      p.spread.push(f.data.spreadFactorQ32 ?? st.spread.value);
    }
    const state = [...states.values()].map((s) => ({
      cluster: s.cluster,
      pool: s.pool,
      midprice_q32: s.midprice.value,
      midprice_pos: fromPosition(s.midprice.pos),
      spread_factor_q32: s.spread.value,
      spread_factor_pos: fromPosition(s.spread.pos),
    }));
    const [t, n] = [textArray, numberArray];
    await tx.query(sql, [
      ...rows.params(), t(p.instruction),
      n(p.sequence), n(p.mid), n(p.spread), JSON.stringify(state),
    ]);
  };
}

/** Latest chain position wins; an equal position (same fact delivered again) re-applies the same value. */
function advance(field: FieldState, value: string | null, pos: ChainPosition): void {
  if (value === null) return;
  if (field.pos === null || compareChainPositions(pos, field.pos) >= 0) {
    field.value = value;
    field.pos = pos;
  }
}

function toPosition(a: string[] | null): ChainPosition | null {
  return a ? { slot: Number(a[0]), txIndex: Number(a[1]), ixIndex: Number(a[2]), innerIndex: Number(a[3]) } : null;
}

function fromPosition(p: ChainPosition | null): number[] | null {
  return p ? [p.slot, p.txIndex, p.ixIndex, p.innerIndex] : null;
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
  return `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::int4[], $8::int4[], $9::int4[],
                         $10::text[], $11::text[], $12::numeric[], $13::numeric[], $14::numeric[])
      AS t(id, cluster, pool, ts, block_time, slot, tx_index, ix_index, inner_index, signature, instruction, sequence,
           midprice_q32, spread_factor_q32)
  ), ins AS (
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
    INSERT INTO ${s}.midprice_state AS t (cluster, pool, midprice_q32, midprice_pos, spread_factor_q32, spread_factor_pos)
    SELECT cluster, pool, midprice_q32, midprice_pos, spread_factor_q32, spread_factor_pos
      FROM jsonb_to_recordset($15::jsonb) AS x(cluster text, pool text, midprice_q32 numeric(20,0), midprice_pos int8[],
                                               spread_factor_q32 numeric(20,0), spread_factor_pos int8[])
    ON CONFLICT (cluster, pool) DO UPDATE SET
      midprice_q32 = CASE WHEN ${newer('midprice')} THEN EXCLUDED.midprice_q32 ELSE t.midprice_q32 END,
      midprice_pos = CASE WHEN ${newer('midprice')} THEN EXCLUDED.midprice_pos ELSE t.midprice_pos END,
      spread_factor_q32 = CASE WHEN ${newer('spread_factor')} THEN EXCLUDED.spread_factor_q32 ELSE t.spread_factor_q32 END,
      spread_factor_pos = CASE WHEN ${newer('spread_factor')} THEN EXCLUDED.spread_factor_pos ELSE t.spread_factor_pos END
  )
  SELECT count(*)::int AS inserted FROM ins`;
}

export const midpriceProjectionV1: ProjectionDefinition = {
  name: 'midprice',
  schema: midpriceSchemaV1,
  eventTypes: ['MidpriceUpdated', 'PoolDiscovered', 'PoolConfigChanged'],
  createHandler: createMidpriceHandlerV1,
};
