import type { ProjectionSchemaVersion } from '../../projection';

const POSITION = `slot bigint NOT NULL,
      tx_index integer NOT NULL,
      ix_index integer NOT NULL,
      inner_index integer NOT NULL`;

const POOL_TOTALS = `volume_q32 numeric NOT NULL,
      spread_q32 numeric NOT NULL,
      protocol_fee_q32 numeric NOT NULL,
      fee_x_raw numeric NOT NULL,
      fee_y_raw numeric NOT NULL,
      swap_count bigint NOT NULL,
      unpriced_count bigint NOT NULL`;

/** Per-recipient fee rollup of one bucket size; `last_*`: the recipient's latest split swap in it, by chain position. */
const recipientRollupTable = (s: string, table: string, bucketCol: string) => `CREATE TABLE ${s}.${table} (
      cluster text NOT NULL,
      pool text NOT NULL,
      ${bucketCol} bigint NOT NULL,
      recipient text NOT NULL,
      fee_x_raw_x1e6 numeric NOT NULL,
      fee_y_raw_x1e6 numeric NOT NULL,
      fee_value_q32_x1e6 numeric NOT NULL,
      swap_count bigint NOT NULL,
      last_ppm integer NOT NULL,
      last_slot bigint NOT NULL,
      last_tx_index integer NOT NULL,
      last_ix_index integer NOT NULL,
      last_inner_index integer NOT NULL,
      PRIMARY KEY (cluster, pool, ${bucketCol}, recipient))`;

const recipientRollupView = (table: string, bucketCol: string) => ({
  name: table,
  select: (s: string) => `SELECT cluster, pool, ${bucketCol}, recipient, fee_x_raw_x1e6, fee_y_raw_x1e6, fee_value_q32_x1e6,
        swap_count, last_ppm, last_slot, last_tx_index, last_ix_index, last_inner_index FROM ${s}.${table}`,
});

/**
 * v1 of the `swaps` read model: swap facts (with the fee split each carried), and the rollups every
 * fee and volume query is answered from (hour, minute, UTC day; per pool and per fee recipient).
 * The per-recipient split rows are a view over the swaps (`read.swap_fee_splits`): one indexed
 * row per swap instead of one per swap and recipient keeps the write path fast.
 * All money is numeric "Q32 quote atoms" (quote atoms × 2^32), exact; split amounts are also
 * multiplied by 10^6 (`*_x1e6`: fee × ppm, never divided) so that sums stay exact.
 * `ts` = block time, or 0 when the chain gave none. Primary keys start with (cluster, pool, ts…):
 * one index serves both idempotency (the event id is in it) and window scans.
 */
export const swapsSchemaV1: ProjectionSchemaVersion = {
  version: 1,
  tables: [
    { name: 'swaps', key: ['cluster', 'pool', 'ts', 'id'] },
    { name: 'fee_rollup_hourly', key: ['cluster', 'pool', 'hour_start'] },
    { name: 'fee_rollup_minute', key: ['cluster', 'pool', 'minute_start'] },
    { name: 'fee_recipient_hourly', key: ['cluster', 'pool', 'hour_start', 'recipient'] },
    { name: 'volume_daily', key: ['cluster', 'pool', 'day_start'] },
  ],
  ddl: (s) => [
    `CREATE TABLE ${s}.swaps (
      cluster text NOT NULL,
      pool text NOT NULL,
      ts bigint NOT NULL,
      id text NOT NULL,
      block_time bigint,
      ${POSITION},
      signature text,
      side text NOT NULL,
      trader text NOT NULL,
      amount_in numeric(20,0) NOT NULL,
      amount_in_to_vault numeric(20,0) NOT NULL,
      amount_out numeric(20,0) NOT NULL,
      fee_x_raw numeric(20,0) NOT NULL,
      fee_y_raw numeric(20,0) NOT NULL,
      decimals_x smallint NOT NULL,
      decimals_y smallint NOT NULL,
      midprice_q32 numeric(20,0),
      volume_q32 numeric NOT NULL,
      spread_q32 numeric NOT NULL,
      protocol_fee_q32 numeric NOT NULL,
      priced boolean NOT NULL,
      split_tracked boolean NOT NULL,
      -- The fee split the swap carried (recipients merged, in order), null without one.
      split_recipients text[],
      split_ppm integer[],
      PRIMARY KEY (cluster, pool, ts, id))`,
    `CREATE TABLE ${s}.fee_rollup_hourly (
      cluster text NOT NULL,
      pool text NOT NULL,
      hour_start bigint NOT NULL,
      ${POOL_TOTALS},
      PRIMARY KEY (cluster, pool, hour_start))`,
    // The 24 h refresher finds the pools active in the last day with it.
    `CREATE INDEX ON ${s}.fee_rollup_hourly (hour_start)`,
    `CREATE TABLE ${s}.fee_rollup_minute (
      cluster text NOT NULL,
      pool text NOT NULL,
      minute_start bigint NOT NULL,
      ${POOL_TOTALS},
      PRIMARY KEY (cluster, pool, minute_start))`,
    recipientRollupTable(s, 'fee_recipient_hourly', 'hour_start'),
    `CREATE TABLE ${s}.volume_daily (
      cluster text NOT NULL,
      pool text NOT NULL,
      day_start bigint NOT NULL,
      volume_q32 numeric NOT NULL,
      spread_q32 numeric NOT NULL,
      protocol_fee_q32 numeric NOT NULL,
      fees_q32 numeric NOT NULL,
      swap_count bigint NOT NULL,
      PRIMARY KEY (cluster, pool, day_start))`,
  ],
  views: [
    {
      name: 'swaps',
      select: (s) => `SELECT cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, side, trader,
        amount_in, amount_in_to_vault, amount_out, fee_x_raw, fee_y_raw, decimals_x, decimals_y, midprice_q32,
        volume_q32, spread_q32, protocol_fee_q32, priced, split_tracked, split_recipients, split_ppm FROM ${s}.swaps`,
    },
    {
      // One row per recipient of each fee-bearing swap that carried a split (spec rules 1–3), its
      // share exact as fee × ppm (÷ 10^6 at the edge). Filter on (cluster, pool, ts): swaps' index.
      name: 'swap_fee_splits',
      select: (s) => `SELECT s.cluster, s.pool, s.ts, s.id AS swap_id, r.recipient, r.ppm, s.slot, s.tx_index, s.ix_index, s.inner_index,
        s.fee_x_raw * r.ppm AS fee_x_raw_x1e6, s.fee_y_raw * r.ppm AS fee_y_raw_x1e6, s.protocol_fee_q32 * r.ppm AS fee_value_q32_x1e6
        FROM ${s}.swaps s CROSS JOIN LATERAL unnest(s.split_recipients, s.split_ppm) AS r(recipient, ppm)
       WHERE s.split_recipients IS NOT NULL AND (s.fee_x_raw > 0 OR s.fee_y_raw > 0)`,
    },
    {
      name: 'fee_rollup_hourly',
      select: (s) => `SELECT cluster, pool, hour_start, volume_q32, spread_q32, protocol_fee_q32, fee_x_raw, fee_y_raw,
        swap_count, unpriced_count FROM ${s}.fee_rollup_hourly`,
    },
    {
      name: 'fee_rollup_minute',
      select: (s) => `SELECT cluster, pool, minute_start, volume_q32, spread_q32, protocol_fee_q32, fee_x_raw, fee_y_raw,
        swap_count, unpriced_count FROM ${s}.fee_rollup_minute`,
    },
    recipientRollupView('fee_recipient_hourly', 'hour_start'),
    {
      name: 'volume_daily',
      select: (s) => `SELECT cluster, pool, day_start, volume_q32, spread_q32, protocol_fee_q32, fees_q32, swap_count
        FROM ${s}.volume_daily`,
    },
  ],
};

/**
 * v2 of the `swaps` read model = v1 plus:
 * - `fee_recipient_minute` (view `read.fee_recipient_minute`): the per-recipient rollup of
 *   `fee_recipient_hourly` per minute (same columns and semantics, `last_ppm` by chain position),
 *   so a fee split over any window reads whole hours and whole minutes from rollups and at most
 *   two partial minutes of raw swaps (O(buckets), like the totals);
 * - a unique (cluster, id) on `swaps`: an event id counts once even if a copy arrives with another
 *   block time (the primary key holds ts = block time); a copy with another payload is refused.
 */
export const swapsSchemaV2: ProjectionSchemaVersion = {
  version: 2,
  tables: [...swapsSchemaV1.tables, { name: 'fee_recipient_minute', key: ['cluster', 'pool', 'minute_start', 'recipient'] }],
  ddl: (s) => [...swapsSchemaV1.ddl(s), `CREATE UNIQUE INDEX ON ${s}.swaps (cluster, id)`, recipientRollupTable(s, 'fee_recipient_minute', 'minute_start')],
  views: [...swapsSchemaV1.views, recipientRollupView('fee_recipient_minute', 'minute_start')],
};

/**
 * `read.fee_recipient_minute` while a v1 build is served (an in-place upgrade replaying v2 beside
 * it): v1 has no such table, so the view derives the same columns from v1's swaps — exact, the
 * same grouping and `last_*` by chain position as v2's table, but O(split rows of the pool). So the
 * API reads one set of views whichever swaps version is served (the API never asks which).
 */
export const feeRecipientMinuteFromSwaps = {
  name: 'fee_recipient_minute',
  select: (s: string) => `SELECT cluster, pool, minute_start, recipient, sum(fee_x_raw_x1e6) AS fee_x_raw_x1e6, sum(fee_y_raw_x1e6) AS fee_y_raw_x1e6,
        sum(fee_value_q32_x1e6) AS fee_value_q32_x1e6, count(*)::bigint AS swap_count, (max(pos))[5]::integer AS last_ppm, (max(pos))[1] AS last_slot,
        (max(pos))[2]::integer AS last_tx_index, (max(pos))[3]::integer AS last_ix_index, (max(pos))[4]::integer AS last_inner_index
      FROM (SELECT s.cluster, s.pool, s.ts - s.ts % 60 AS minute_start, r.recipient, s.fee_x_raw * r.ppm AS fee_x_raw_x1e6, s.fee_y_raw * r.ppm AS fee_y_raw_x1e6,
                   s.protocol_fee_q32 * r.ppm AS fee_value_q32_x1e6, ARRAY[s.slot, s.tx_index, s.ix_index, s.inner_index, r.ppm]::int8[] AS pos
              FROM ${s}.swaps s CROSS JOIN LATERAL unnest(s.split_recipients, s.split_ppm) AS r(recipient, ppm)
             WHERE s.split_recipients IS NOT NULL AND (s.fee_x_raw > 0 OR s.fee_y_raw > 0)) x
     GROUP BY cluster, pool, minute_start, recipient`,
};

/**
 * How a v1 build is served by this release: v1's tables (frozen: `swapsSchemaV1`, which the initial
 * migration built) with v2's set of views, `fee_recipient_minute` derived (above).
 */
export const swapsSchemaV1Served: ProjectionSchemaVersion = { ...swapsSchemaV1, views: [...swapsSchemaV1.views, feeRecipientMinuteFromSwaps] };
