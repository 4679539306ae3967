import type { ProjectionSchemaVersion, ReadView } from '../../projection';
import { sqlBucket } from '../../sql/identifiers';

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

/** The pool totals every rollup keeps (money exact: Q32 numeric and raw atoms). */
export const POOL_TOTALS_COLUMNS = ['volume_q32', 'spread_q32', 'protocol_fee_q32', 'fee_x_raw', 'fee_y_raw', 'swap_count', 'unpriced_count'] as const;
/** A recipient's share columns (× 10^6, exact) and its swap count. */
export const RECIPIENT_TOTALS_COLUMNS = ['fee_x_raw_x1e6', 'fee_y_raw_x1e6', 'fee_value_q32_x1e6', 'swap_count'] as const;
/** The recipient's latest split swap in a bucket (block time order within the pool's buckets, then chain position). */
export const LAST_COLUMNS = ['last_ppm', 'last_slot', 'last_tx_index', 'last_ix_index', 'last_inner_index'] as const;
const run = (cols: readonly string[]) => cols.map((c) => `run_${c}`);
const DAY = 86_400;

/**
 * Running ("prefix-sum") totals: per pool (and per pool and recipient), one row per second and one
 * per UTC day that held swaps. A row has the bucket's own totals and `run_*`:
 * - second rows: the running total within the second's UTC day, through that second (inclusive);
 * - day rows: the running total of the pool's whole history, through the end of that day.
 * So the totals of all swaps with ts < X are (the last day row before X's day).run_* + (the last
 * second row of X's day before X).run_*: two index lookups, and any window [start, end] is that at
 * end + 1 minus that at start — O(1) in the window's length and the pool's age, exact (no edges).
 * A swap that arrives late (a gap filled, a backfill out of order) changes its second's and its
 * day's own totals, and the writer recomputes the `run_*` of every later row of that day (seconds)
 * and of every later day: bounded by one day's seconds plus the pool's days, however old it is.
 */
const runningTable = (s: string, table: string, keyCols: string, bucketCol: string, own: readonly string[], extra = '') => `CREATE TABLE ${s}.${table} (
      cluster text NOT NULL,
      pool text NOT NULL,${keyCols}
      ${bucketCol} bigint NOT NULL,
      ${own.map((c) => `${c} ${c.endsWith('count') ? 'bigint' : 'numeric'} NOT NULL`).join(',\n      ')},${extra}
      ${run(own)
        .map((c) => `${c} ${c.endsWith('count') ? 'bigint' : 'numeric'} NOT NULL`)
        .join(',\n      ')},
      PRIMARY KEY (cluster, pool,${keyCols ? ' recipient,' : ''} ${bucketCol}))`;
const RECIPIENT_KEY = `
      recipient text NOT NULL,`;
const LAST_DDL = `
      last_ppm integer NOT NULL,
      last_slot bigint NOT NULL,
      last_tx_index integer NOT NULL,
      last_ix_index integer NOT NULL,
      last_inner_index integer NOT NULL,`;

const viewOf = (table: string, cols: readonly string[]): ReadView => ({ name: table, select: (s) => `SELECT ${cols.join(', ')} FROM ${s}.${table}` });
const SECOND_COLS = ['cluster', 'pool', 'ts', ...POOL_TOTALS_COLUMNS, ...run(POOL_TOTALS_COLUMNS)];
const DAY_COLS = ['cluster', 'pool', 'day_start', ...POOL_TOTALS_COLUMNS, ...run(POOL_TOTALS_COLUMNS)];
const R_SECOND_COLS = ['cluster', 'pool', 'recipient', 'ts', ...RECIPIENT_TOTALS_COLUMNS, ...LAST_COLUMNS, ...run(RECIPIENT_TOTALS_COLUMNS)];
const R_DAY_COLS = ['cluster', 'pool', 'recipient', 'day_start', ...RECIPIENT_TOTALS_COLUMNS, ...LAST_COLUMNS, ...run(RECIPIENT_TOTALS_COLUMNS)];

/** The columns of each running-total table (and of `fee_recipients`), as its view and derived view name them. */
export const RUNNING_TABLE_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  fee_running_second: SECOND_COLS,
  fee_running_day: DAY_COLS,
  fee_recipient_running_second: R_SECOND_COLS,
  fee_recipient_running_day: R_DAY_COLS,
  fee_recipients: ['cluster', 'pool', 'recipient'],
};

// ---- Derived views (from a build's swaps): the same columns and values as the tables, computed per query. ----

/** Pool totals of the swaps grouped by `bucket` (an expression over ts). */
const poolTotalsFromSwaps = (
  s: string,
  bucket: string,
  as: string,
) => `SELECT cluster, pool, ${bucket} AS ${as}, sum(volume_q32) AS volume_q32, sum(spread_q32) AS spread_q32,
        sum(protocol_fee_q32) AS protocol_fee_q32, sum(fee_x_raw) AS fee_x_raw, sum(fee_y_raw) AS fee_y_raw, count(*)::bigint AS swap_count,
        count(*) FILTER (WHERE NOT priced)::bigint AS unpriced_count
      FROM ${s}.swaps GROUP BY 1, 2, 3`;

/** Recipient shares of the swaps grouped by `bucket`, with the latest split swap's ppm and position (by chain position within the bucket). */
const recipientTotalsFromSwaps = (s: string, bucket: string, as: string) => `SELECT cluster, pool, ${bucket} AS ${as}, recipient,
        sum(fee_x_raw_x1e6) AS fee_x_raw_x1e6, sum(fee_y_raw_x1e6) AS fee_y_raw_x1e6, sum(fee_value_q32_x1e6) AS fee_value_q32_x1e6, count(*)::bigint AS swap_count,
        (max(pos))[5]::integer AS last_ppm, (max(pos))[1] AS last_slot, (max(pos))[2]::integer AS last_tx_index, (max(pos))[3]::integer AS last_ix_index,
        (max(pos))[4]::integer AS last_inner_index
      FROM (SELECT s.cluster, s.pool, s.ts, r.recipient, s.fee_x_raw * r.ppm AS fee_x_raw_x1e6, s.fee_y_raw * r.ppm AS fee_y_raw_x1e6,
                   s.protocol_fee_q32 * r.ppm AS fee_value_q32_x1e6, ARRAY[s.slot, s.tx_index, s.ix_index, s.inner_index, r.ppm]::int8[] AS pos
              FROM ${s}.swaps s CROSS JOIN LATERAL unnest(s.split_recipients, s.split_ppm) AS r(recipient, ppm)
             WHERE s.split_recipients IS NOT NULL AND (s.fee_x_raw > 0 OR s.fee_y_raw > 0)) x
     GROUP BY cluster, pool, 3, recipient`;

/** `run_*` over `grouped` rows: running sums in `partition`, ordered by `order`. */
const withRunning = (grouped: string, own: readonly string[], cols: readonly string[], partition: string, order: string) =>
  `SELECT ${cols.filter((c) => !c.startsWith('run_')).join(', ')}, ${own
    .map((c) => `sum(${c}) OVER w${c.endsWith('count') ? '::bigint' : ''} AS run_${c}`)
    .join(', ')}
      FROM (${grouped}) g WINDOW w AS (PARTITION BY ${partition} ORDER BY ${order})`;

/**
 * The running-total views derived from a build's swaps (any version has them): what a served v1 or
 * v2 build publishes while v3 replays beside it. Exact, the same columns as v3's tables, but each
 * query computes the pool's running sums (O(the pool's swaps)), like the derived minute view below.
 */
export const runningViewsFromSwaps: readonly ReadView[] = [
  {
    name: 'fee_running_second',
    select: (s) => withRunning(poolTotalsFromSwaps(s, 'ts', 'ts'), POOL_TOTALS_COLUMNS, SECOND_COLS, `cluster, pool, ${sqlBucket('ts', DAY)}`, 'ts'),
  },
  {
    name: 'fee_running_day',
    select: (s) => withRunning(poolTotalsFromSwaps(s, sqlBucket('ts', DAY), 'day_start'), POOL_TOTALS_COLUMNS, DAY_COLS, 'cluster, pool', 'day_start'),
  },
  {
    name: 'fee_recipient_running_second',
    select: (s) =>
      withRunning(recipientTotalsFromSwaps(s, 'ts', 'ts'), RECIPIENT_TOTALS_COLUMNS, R_SECOND_COLS, `cluster, pool, recipient, ${sqlBucket('ts', DAY)}`, 'ts'),
  },
  {
    name: 'fee_recipient_running_day',
    select: (s) =>
      withRunning(
        recipientTotalsFromSwaps(s, sqlBucket('ts', DAY), 'day_start'),
        RECIPIENT_TOTALS_COLUMNS,
        R_DAY_COLS,
        'cluster, pool, recipient',
        'day_start',
      ),
  },
  {
    name: 'fee_recipients',
    select: (s) => `SELECT DISTINCT s.cluster, s.pool, r.recipient
      FROM ${s}.swaps s CROSS JOIN LATERAL unnest(s.split_recipients, s.split_ppm) AS r(recipient, ppm)
     WHERE s.split_recipients IS NOT NULL AND (s.fee_x_raw > 0 OR s.fee_y_raw > 0)`,
  },
];

/**
 * `read.fee_recipient_minute` while a v1 build is served (an in-place upgrade replaying v2 beside
 * it), and in v3 (which keeps no such table): derived from the build's swaps, exact, the same
 * grouping and `last_*` by chain position as v2's table, but O(split rows of the pool).
 */
export const feeRecipientMinuteFromSwaps: ReadView = {
  name: 'fee_recipient_minute',
  select: (s) => recipientTotalsFromSwaps(s, sqlBucket('ts', 60), 'minute_start'),
};

/**
 * v3 of the `swaps` read model: fees in O(1) of the window (running totals, above). Tables: swaps
 * and the running totals per second and day, for pools and recipients, with each pool's
 * recipients (`fee_recipients`). `read.volume_daily` is a view of the day rows' own totals. The
 * hourly and minute rollups and the per-recipient ones are gone (nothing reads them on a request
 * path any more: fees and the 24 h stats read the running totals); their `read` views stay,
 * derived from the swaps, so the read contract keeps every view with its columns and types.
 */
export const swapsSchemaV3: ProjectionSchemaVersion = {
  version: 3,
  tables: [
    { name: 'swaps', key: ['cluster', 'pool', 'ts', 'id'] },
    { name: 'fee_running_second', key: ['cluster', 'pool', 'ts'] },
    { name: 'fee_running_day', key: ['cluster', 'pool', 'day_start'] },
    { name: 'fee_recipient_running_second', key: ['cluster', 'pool', 'recipient', 'ts'] },
    { name: 'fee_recipient_running_day', key: ['cluster', 'pool', 'recipient', 'day_start'] },
    { name: 'fee_recipients', key: ['cluster', 'pool', 'recipient'] },
  ],
  ddl: (s) => {
    const v1 = swapsSchemaV1.ddl(s);
    const keep = (table: string) => v1.filter((d) => d.startsWith(`CREATE TABLE ${s}.${table} (`) || d.startsWith(`CREATE INDEX ON ${s}.${table} `));
    return [
      ...keep('swaps'),
      `CREATE UNIQUE INDEX ON ${s}.swaps (cluster, id)`,
      runningTable(s, 'fee_running_second', '', 'ts', POOL_TOTALS_COLUMNS),
      runningTable(s, 'fee_running_day', '', 'day_start', POOL_TOTALS_COLUMNS),
      // The 24 h refresher finds the pools active in the last day with it.
      `CREATE INDEX ON ${s}.fee_running_day (day_start)`,
      runningTable(s, 'fee_recipient_running_second', RECIPIENT_KEY, 'ts', RECIPIENT_TOTALS_COLUMNS, LAST_DDL),
      runningTable(s, 'fee_recipient_running_day', RECIPIENT_KEY, 'day_start', RECIPIENT_TOTALS_COLUMNS, LAST_DDL),
      `CREATE TABLE ${s}.fee_recipients (
      cluster text NOT NULL,
      pool text NOT NULL,
      recipient text NOT NULL,
      PRIMARY KEY (cluster, pool, recipient))`,
    ];
  },
  views: [
    ...swapsSchemaV1.views.filter((v) => ['swaps', 'swap_fee_splits'].includes(v.name)),
    { name: 'fee_rollup_hourly', select: (s) => poolTotalsFromSwaps(s, sqlBucket('ts', 3600), 'hour_start') },
    { name: 'fee_rollup_minute', select: (s) => poolTotalsFromSwaps(s, sqlBucket('ts', 60), 'minute_start') },
    {
      // The day rows' own totals are exactly the daily volume rollup (same key, same index).
      name: 'volume_daily',
      select: (s) => `SELECT cluster, pool, day_start, volume_q32, spread_q32, protocol_fee_q32, spread_q32 + protocol_fee_q32 AS fees_q32, swap_count
        FROM ${s}.fee_running_day`,
    },
    { name: 'fee_recipient_hourly', select: (s) => recipientTotalsFromSwaps(s, sqlBucket('ts', 3600), 'hour_start') },
    feeRecipientMinuteFromSwaps,
    viewOf('fee_running_second', SECOND_COLS),
    viewOf('fee_running_day', DAY_COLS),
    viewOf('fee_recipient_running_second', R_SECOND_COLS),
    viewOf('fee_recipient_running_day', R_DAY_COLS),
    viewOf('fee_recipients', ['cluster', 'pool', 'recipient']),
  ],
};

/** How a v2 build is served by this release: v2's tables with v3's set of views (running totals derived). */
export const swapsSchemaV2Served: ProjectionSchemaVersion = { ...swapsSchemaV2, views: [...swapsSchemaV2.views, ...runningViewsFromSwaps] };

/**
 * How a v1 build is served by this release: v1's tables (frozen: `swapsSchemaV1`, which the initial
 * migration built) with v3's set of views: `fee_recipient_minute` and the running totals derived.
 */
export const swapsSchemaV1Served: ProjectionSchemaVersion = {
  ...swapsSchemaV1,
  views: [...swapsSchemaV1.views, feeRecipientMinuteFromSwaps, ...runningViewsFromSwaps],
};
