import type { ProjectionSchemaVersion, ReadView } from '../../projection';
import { sqlBucket } from '../../sql/identifiers';
import { newestFirst } from './midprice.shared';

const Q32 = '4294967296';

const pointsTable = (s: string) => `CREATE TABLE ${s}.midprice_points (
      cluster text NOT NULL,
      pool text NOT NULL,
      ts bigint NOT NULL,
      id text NOT NULL,
      block_time bigint,
      slot bigint NOT NULL,
      tx_index integer NOT NULL,
      ix_index integer NOT NULL,
      inner_index integer NOT NULL,
      signature text,
      instruction text NOT NULL,
      sequence numeric(20,0) NOT NULL,
      midprice_q32 numeric(20,0),
      spread_factor_q32 numeric(20,0),
      PRIMARY KEY (cluster, pool, ts, id))`;

const lastPointTable = (s: string, table: string, bucketCol: string) => `CREATE TABLE ${s}.${table} (
      cluster text NOT NULL,
      pool text NOT NULL,
      ${bucketCol} bigint NOT NULL,
      ts bigint NOT NULL,
      slot bigint NOT NULL,
      tx_index integer NOT NULL,
      ix_index integer NOT NULL,
      inner_index integer NOT NULL,
      signature text,
      midprice_q32 numeric(20,0),
      spread_factor_q32 numeric(20,0),
      point_id text NOT NULL,
      PRIMARY KEY (cluster, pool, ${bucketCol}))`;

const lastPointView = (table: string, bucketCol: string) => ({
  name: table,
  select: (s: string) => `SELECT cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature,
    midprice_q32, spread_factor_q32, trim_scale(midprice_q32 / ${Q32}::numeric) AS midprice, trim_scale(spread_factor_q32 / ${Q32}::numeric) AS base_spread_factor,
    point_id FROM ${s}.${table}`,
});

/**
 * v1 of the `midprice` read model: every oracle update as a point (the field an instruction left
 * null carried forward from the pool's last known value), plus the last point of every minute
 * and hour, so sampled history costs O(buckets): every API timeframe (1m … 24h) is a multiple of
 * a minute, and 1h … 24h of an hour.
 */
export const midpriceSchemaV1: ProjectionSchemaVersion = {
  version: 1,
  tables: [
    { name: 'midprice_points', key: ['cluster', 'pool', 'ts', 'id'] },
    { name: 'midprice_minute', key: ['cluster', 'pool', 'minute_start'] },
    { name: 'midprice_hourly', key: ['cluster', 'pool', 'hour_start'] },
    { name: 'midprice_state', key: ['cluster', 'pool'] },
  ],
  ddl: (s) => [
    pointsTable(s),
    lastPointTable(s, 'midprice_minute', 'minute_start'),
    lastPointTable(s, 'midprice_hourly', 'hour_start'),
    // Carry-forward state per pool (last known value of each field, with its chain position).
    `CREATE TABLE ${s}.midprice_state (
      cluster text NOT NULL,
      pool text NOT NULL,
      midprice_q32 numeric(20,0),
      midprice_pos int8[],
      spread_factor_q32 numeric(20,0),
      spread_factor_pos int8[],
      PRIMARY KEY (cluster, pool))`,
  ],
  views: [
    {
      name: 'midprice_points',
      select: (s) => `SELECT cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, instruction,
        sequence, midprice_q32, spread_factor_q32, trim_scale(midprice_q32 / ${Q32}::numeric) AS midprice,
        trim_scale(spread_factor_q32 / ${Q32}::numeric) AS base_spread_factor FROM ${s}.midprice_points`,
    },
    lastPointView('midprice_minute', 'minute_start'),
    lastPointView('midprice_hourly', 'hour_start'),
  ],
};

/**
 * v2 of the `midprice` read model. Same views and columns as v1; what changed is what a point is:
 * - only updates that set the midprice (UpdateMidprice, UpdateMidpriceAndBaseSpread) are points,
 *   and only they can be a minute's or an hour's last point; a spread-only UpdateBaseSpread
 *   changes the spread carried to later points and makes no point;
 * - the spread of an UpdateMidprice point is the oracle's value after the update as the indexer
 *   tracked it (`spreadFactorAfterQ32`) when the event has it; otherwise it is carried only from
 *   a source positioned strictly before the point in chain order (an earlier update, or a
 *   snapshot read before it), never from a snapshot read later: null when none is known;
 * - an event id is applied once even if a copy arrives with another block time (unique
 *   (cluster, id)); a copy with a different payload is refused as a poison event.
 */
export const midpriceSchemaV2: ProjectionSchemaVersion = {
  version: 2,
  tables: midpriceSchemaV1.tables,
  ddl: (s) => [
    pointsTable(s),
    // Idempotency by event id whatever the block time of a copy (the primary key holds ts).
    `CREATE UNIQUE INDEX ON ${s}.midprice_points (cluster, id)`,
    lastPointTable(s, 'midprice_minute', 'minute_start'),
    lastPointTable(s, 'midprice_hourly', 'hour_start'),
    // Per pool, the latest spread (by chain position) from updates (their own value, or the value
    // after them) and, apart, from snapshots: a snapshot is often read after the history it is
    // published before, so it must not hide the updates that precede it.
    `CREATE TABLE ${s}.midprice_state (
      cluster text NOT NULL,
      pool text NOT NULL,
      spread_factor_q32 numeric(20,0),
      spread_factor_pos int8[],
      snapshot_spread_factor_q32 numeric(20,0),
      snapshot_spread_factor_pos int8[],
      PRIMARY KEY (cluster, pool))`,
  ],
  views: midpriceSchemaV1.views,
};

/**
 * `read.midprice_five_minute` of a build without that table (v1, v2): the last of the minutes'
 * last points in each 5 minutes, by chain position. Exact, the same columns as v3's table; each
 * query reads the pool's minute rows (O(the pool's minutes)), like the derived fee views of swaps.
 */
export const fiveMinuteFromMinutes: ReadView = {
  name: 'midprice_five_minute',
  select: (s) => `SELECT DISTINCT ON (cluster, pool, ${sqlBucket('minute_start', 300)}) cluster, pool, ${sqlBucket('minute_start', 300)} AS five_minute_start,
    ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32,
    trim_scale(midprice_q32 / ${Q32}::numeric) AS midprice, trim_scale(spread_factor_q32 / ${Q32}::numeric) AS base_spread_factor, point_id
    FROM ${s}.midprice_minute ORDER BY cluster, pool, 3, ${newestFirst('point_id')}`,
};

/**
 * v3 of the `midprice` read model: v2's points and rules, plus the last point of every 5 minutes
 * (`midprice_five_minute`), so a sampled query of 5 or 30 minutes reads one row per 5 minutes
 * instead of one per minute (v2 read every minute of a 30-minute bucket).
 */
export const midpriceSchemaV3: ProjectionSchemaVersion = {
  version: 3,
  tables: [...midpriceSchemaV2.tables, { name: 'midprice_five_minute', key: ['cluster', 'pool', 'five_minute_start'] }],
  ddl: (s) => [...midpriceSchemaV2.ddl(s), lastPointTable(s, 'midprice_five_minute', 'five_minute_start')],
  views: [...midpriceSchemaV2.views, lastPointView('midprice_five_minute', 'five_minute_start')],
};

/** How a v2 build is served by this release: v2's tables with v3's set of views (the five-minute one derived). */
export const midpriceSchemaV2Served: ProjectionSchemaVersion = { ...midpriceSchemaV2, views: [...midpriceSchemaV2.views, fiveMinuteFromMinutes] };

/** How a v1 build is served by this release: v1's tables with v3's set of views (the five-minute one derived). */
export const midpriceSchemaV1Served: ProjectionSchemaVersion = { ...midpriceSchemaV1, views: [...midpriceSchemaV1.views, fiveMinuteFromMinutes] };
