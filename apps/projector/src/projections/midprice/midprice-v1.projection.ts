import { chainPosition } from '@hadron/domain';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import type { ProjectionDefinition } from '../../projection';
import { advance, CarriedState, oracleFacts, PointColumns, stateKey, writePointsSql } from './midprice.shared';
import { midpriceSchemaV1Served } from './midprice.schema';

/**
 * `midprice` v1 (released; frozen): one point per MidpriceUpdated, with the field its instruction
 * left null carried forward from the pool's latest known value by chain position (an earlier
 * update, or the oracle account read by a PoolDiscovered / PoolConfigChanged snapshot), plus the
 * last point of each minute and hour. Superseded by v2 (midprice.projection.ts): a snapshot
 * published before the history it follows gave historical points values from the future, and
 * spread-only updates made points. Kept so an active v1 build keeps consuming while v2 replays.
 */
export function createMidpriceHandlerV1(schema: string): BatchHandler {
  const carried = new CarriedState(schema, { midprice: 'midprice', spread: 'spread_factor' });
  const sql = writePointsSql(schema, carried.upsertSql('$15'));
  return async (events, tx) => {
    const facts = oracleFacts(events);
    if (facts.length === 0) return;
    const states = await carried.load(tx, facts);

    const points = new PointColumns();
    const seen = new Set<string>();
    for (const f of facts) {
      const st = states.get(stateKey(f))!;
      const pos = chainPosition(f);
      advance(st.midprice, f.data.midpriceQ32, pos);
      advance(st.spread, f.data.spreadFactorQ32, pos);
      if (f.type !== 'MidpriceUpdated' || seen.has(f.id)) continue;
      seen.add(f.id);
      points.push(f, pos, f.data.midpriceQ32 ?? st.midprice.value, f.data.spreadFactorQ32 ?? st.spread.value);
    }
    await tx.query(sql, [...points.params(), carried.toJson(states)]);
  };
}

/** Released v1 (frozen tables), served with the current version's set of views (the five-minute one derived). */
export const midpriceProjectionV1: ProjectionDefinition = {
  name: 'midprice',
  schema: midpriceSchemaV1Served,
  eventTypes: ['MidpriceUpdated', 'PoolDiscovered', 'PoolConfigChanged'],
  createHandler: createMidpriceHandlerV1,
};
