import type { EventOf } from '@hadron/contracts';
import { chainPosition, compareChainPositions, type ChainPosition } from '@hadron/domain';
import type { BatchHandler, SqlTx } from '@hadron/platform/event-log/event-log.port';
import type { ProjectionDefinition } from '../../projection';
import { BatchIds, refuseChangedDuplicates } from '../../sql/duplicates';
import { midpriceProjectionV1 } from './midprice-v1.projection';
import { midpriceSchemaV2Served, midpriceSchemaV3 } from './midprice.schema';
import { copiedStraight, StagingTable, stagedText } from '../../sql/staging';
import {
  advance,
  CarriedState,
  lastPointsInsert,
  oracleFacts,
  POINT_COLUMN_TYPES,
  PointColumns,
  stateKey,
  writePointsSql,
  type PoolSources,
} from './midprice.shared';

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
 * `midprice` v3: one point per update that set the midprice (tags 5, 10), plus the last point of
 * each minute, 5 minutes and hour (v2: the same without the 5 minutes). The spread of a tag-5 point is the indexer's `spreadFactorAfterQ32` when
 * the event carries it, else the latest spread from a source positioned strictly before the point
 * (an update, or a snapshot read before it), else null: a backfill publishes PoolDiscovered (the
 * oracle read at the end of the backfill) before the history, and its spread must not leak back
 * into that history. Spread-only updates (tag 9) only move the carried spread.
 * Per batch: one read of the carried state of the pools in the batch, the points COPYed into a
 * staging table, one write statement reading them.
 */
export function createMidpriceHandler(schema: string): BatchHandler {
  return midpriceHandler(schema, { fiveMinute: true, building: false });
}

/**
 * v3's replay (a `building` build): the points and the carried state as v3 writes them,
 * idempotent and refusing changed copies alike, the points COPYed straight into their table; the
 * last points of each minute, 5 minutes and hour are left to `finishMidpriceBuild`.
 */
export function createMidpriceBuildingHandler(schema: string): BatchHandler {
  return midpriceHandler(schema, { fiveMinute: true, building: true });
}

/**
 * Writes a v3 build's last points (minute, 5 minutes, hour) from its points, set-based, once its
 * replay by `createMidpriceBuildingHandler` has caught up: the minutes from the points, each
 * coarser bucket from the one below it (the last of its last points). Total: whatever the tables
 * held before (a batch of the live path, a failed finish) is replaced.
 */
export async function finishMidpriceBuild(tx: SqlTx, schema: string): Promise<void> {
  await tx.query(`TRUNCATE ${LAST_POINT_TABLES.map((t) => `${schema}.${t.table}`).join(', ')}`);
  for (const t of LAST_POINT_TABLES) await tx.query(lastPointsInsert(schema, { ...t, from: `${schema}.${t.from}` }));
}

/** Each last-point table with the (finer) table it is filled from at a finish. */
const LAST_POINT_TABLES = [
  { table: 'midprice_minute', bucketCol: 'minute_start', size: 60, from: 'midprice_points', idCol: 'id' },
  { table: 'midprice_five_minute', bucketCol: 'five_minute_start', size: 300, from: 'midprice_minute', idCol: 'point_id' },
  { table: 'midprice_hourly', bucketCol: 'hour_start', size: 3600, from: 'midprice_five_minute', idCol: 'point_id' },
] as const;

/** v2 (released; frozen tables): v3 without the last point of every 5 minutes. */
export function createMidpriceHandlerV2(schema: string): BatchHandler {
  return midpriceHandler(schema, { fiveMinute: false, building: false });
}

/** `fiveMinute`: v3's last point of every 5 minutes; `building`: a replay's handler (the points and the state alone). */
function midpriceHandler(schema: string, { fiveMinute, building }: { fiveMinute: boolean; building: boolean }): BatchHandler {
  // Per pool, the latest spread by chain position from updates (set by them, or in effect right
  // after them) and, apart, the latest one read by a PoolDiscovered / PoolConfigChanged snapshot.
  const carried = new CarriedState(schema, { update: 'spread_factor', snapshot: 'snapshot_spread_factor' });
  const staging = new StagingTable('midprice_points_input', POINT_COLUMN_TYPES);
  const sql = writePointsSql(schema, carried.upsertSql('$1'), { input: staging.relation, fiveMinute, byId: true });
  // A replay's points: COPYed straight into the table (a copy of a point already applied fails
  // the COPY: then the staging path below), the carried state saved on its own.
  const direct = building ? `COPY ${schema}.midprice_points (${POINT_COLUMN_TYPES.map(([c]) => c).join(', ')}) FROM STDIN` : undefined;
  const saveState = building ? carried.upsertSql('$1') : '';
  return async (events, tx) => {
    const facts = oracleFacts(events);
    if (facts.length === 0) return;
    const states = await carried.load(tx, facts);

    // In log order: a point sees exactly the sources that arrived before it, whatever the batching.
    const points = new PointColumns();
    const ids = new BatchIds();
    for (const f of facts) {
      const st = states.get(stateKey(f))!;
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
      if (!ids.first(f.id, () => fingerprint(f))) continue;
      advance(st.update, spread, pos);
      points.push(f, pos, d.midpriceQ32, spread);
    }
    // The replay's COPY text, built once: a batch whose COPY met a copy stages the same text.
    const text = direct === undefined || points.size === 0 ? undefined : stagedText(points.columns());
    if (direct !== undefined && (text === undefined || (await copiedStraight(tx, direct, text)))) {
      await tx.query(saveState, [carried.toJson(states)]);
      return;
    }
    await staging.with(tx, text ?? points.columns(), async () => {
      const { rows } = await tx.query<{ inserted: number }>(sql, [carried.toJson(states)]);
      if (rows[0].inserted < points.size) await refuseChangedDuplicates(tx, `${schema}.midprice_points`, staging.relation, POINT_IDENTITY, []);
    });
  };
}

/** The spread in effect just before `pos`, from the sources seen so far: never one positioned at or after it. */
function inEffectBefore(st: PoolSources<'update' | 'snapshot'>, pos: ChainPosition): string | null {
  const before = [st.update, st.snapshot].filter((s) => s.value !== null && s.pos !== null && compareChainPositions(s.pos, pos) < 0);
  if (before.length === 0) return null;
  return before.reduce((a, b) => (compareChainPositions(a.pos!, b.pos!) >= 0 ? a : b)).value;
}

function fingerprint(e: EventOf<'MidpriceUpdated'>): string {
  const d = e.data;
  return JSON.stringify([e.blockTime, e.slot, e.txIndex, e.ixIndex, e.innerIndex, e.signature, d.instruction, d.sequence, d.midpriceQ32, d.spreadFactorQ32]);
}

/** Released v2, still able to consume its build while v3 replays (served with v3's set of views). */
export const midpriceProjectionV2: ProjectionDefinition = {
  name: 'midprice',
  schema: midpriceSchemaV2Served,
  eventTypes: ['MidpriceUpdated', 'PoolDiscovered', 'PoolConfigChanged'],
  createHandler: createMidpriceHandlerV2,
};

export const midpriceProjection: ProjectionDefinition = {
  name: 'midprice',
  schema: midpriceSchemaV3,
  eventTypes: ['MidpriceUpdated', 'PoolDiscovered', 'PoolConfigChanged'],
  createHandler: createMidpriceHandler,
  createBuildingHandler: createMidpriceBuildingHandler,
  finishBuild: finishMidpriceBuild,
  previousVersions: [midpriceProjectionV2, midpriceProjectionV1],
};
