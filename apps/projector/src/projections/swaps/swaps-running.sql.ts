import { sqlBucket } from '../../sql/identifiers';
import { LAST_COLUMNS, POOL_TOTALS_COLUMNS, RECIPIENT_TOTALS_COLUMNS } from './swaps.schema';

/**
 * The SQL that keeps swaps v3's running totals (swaps.schema.ts): one `run_*` per total column,
 * per second (within its UTC day) and per day (whole history), for pools and for recipients.
 *
 * In the batch's statement (`runningCtes`, fed by the `ins` and `shares` CTEs of the swaps
 * handler): each bucket's own totals are added (a plain insert for buckets after the partition's
 * last stored one, an upsert for the others) and, where the batch only appends — its earliest
 * bucket of a partition (a pool's day for seconds, a pool for days; and the same per recipient) is
 * at or after the partition's last stored bucket — `run_*` is final at once: the last stored
 * `run_*` plus the running sum of the batch's buckets. That is every batch of a replay in chain
 * order and of the live tail. Otherwise (a late arrival: a filled gap, an out-of-order backfill)
 * the partition is returned as "late" with its earliest changed bucket, and `recomputeRunningSql`
 * recomputes its `run_*` from there on (to the day's end for seconds; every later day for days).
 */

const DAY = 86_400;

interface RunningTable {
  /** CTE name prefix and table. */
  name: string;
  table: string;
  keys: readonly string[];
  bucketCol: string;
  /** Seconds: partitioned by UTC day; days: by keys only. */
  seconds: boolean;
  own: readonly string[];
  /** Source CTE and the aggregates of `own` (and `last` for recipients) over it. */
  source: string;
  aggregates: string;
  withLast: boolean;
}

const POOL_AGGREGATES = `sum(volume_q32) AS volume_q32, sum(spread_q32) AS spread_q32, sum(protocol_fee_q32) AS protocol_fee_q32,
           sum(fee_x_raw) AS fee_x_raw, sum(fee_y_raw) AS fee_y_raw, count(*) AS swap_count, count(*) FILTER (WHERE NOT priced) AS unpriced_count`;
const RECIPIENT_AGGREGATES = `sum(fee_x_raw_x1e6) AS fee_x_raw_x1e6, sum(fee_y_raw_x1e6) AS fee_y_raw_x1e6,
           sum(fee_value_q32_x1e6) AS fee_value_q32_x1e6, count(*) AS swap_count, max(ARRAY[slot, tx_index, ix_index, inner_index, ppm]::int8[]) AS last`;

const POOL = ['cluster', 'pool'];
const RECIPIENT = ['cluster', 'pool', 'recipient'];
const TABLES: readonly RunningTable[] = [
  {
    name: 'rs',
    table: 'fee_running_second',
    keys: POOL,
    bucketCol: 'ts',
    seconds: true,
    own: POOL_TOTALS_COLUMNS,
    source: 'ins',
    aggregates: POOL_AGGREGATES,
    withLast: false,
  },
  {
    name: 'rd',
    table: 'fee_running_day',
    keys: POOL,
    bucketCol: 'day_start',
    seconds: false,
    own: POOL_TOTALS_COLUMNS,
    source: 'ins',
    aggregates: POOL_AGGREGATES,
    withLast: false,
  },
  {
    name: 'rrs',
    table: 'fee_recipient_running_second',
    keys: RECIPIENT,
    bucketCol: 'ts',
    seconds: true,
    own: RECIPIENT_TOTALS_COLUMNS,
    source: 'shares',
    aggregates: RECIPIENT_AGGREGATES,
    withLast: true,
  },
  {
    name: 'rrd',
    table: 'fee_recipient_running_day',
    keys: RECIPIENT,
    bucketCol: 'day_start',
    seconds: false,
    own: RECIPIENT_TOTALS_COLUMNS,
    source: 'shares',
    aggregates: RECIPIENT_AGGREGATES,
    withLast: true,
  },
];

const day = (v: string) => sqlBucket(v, DAY);
const eq = (keys: readonly string[], a: string, b: string) => keys.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
const cols = (keys: readonly string[], t: string) => keys.map((k) => `${t}.${k}`).join(', ');
const lastPos = (t: string) => `ARRAY[${t}.last_slot, ${t}.last_tx_index, ${t}.last_ix_index, ${t}.last_inner_index]::int8[]`;

/** The CTEs of one running table in the batch's statement; `<name>_late` lists its late partitions (keys, start). */
function tableCtes(s: string, t: RunningTable): string {
  const part = t.seconds ? [...t.keys, 'day'] : t.keys;
  const inPart = t.seconds ? ` AND x.ts >= k.day AND x.ts < k.day + ${DAY}` : '';
  const run = t.own.map((c) => `run_${c}`);
  const append = `k.last_bucket IS NULL OR k.start >= k.last_bucket`;
  const rest = [...t.own, ...(t.withLast ? LAST_COLUMNS : []), ...run];
  const columns = [...t.keys, t.bucketCol, ...rest].join(', ');
  const values = [...t.keys, 'bucket', ...rest].join(', ');
  // `<name>_w` is the batch's buckets with their running totals. Those after the partition's last
  // stored bucket (every bucket of an append but its first) cannot exist yet, there being one
  // writer per build: `<name>_new` inserts them without ON CONFLICT's per-row arbiter check
  // (measured: a third of such an insert's time). The others are upserted.
  return `${t.name}_g AS (
    SELECT ${t.keys.join(', ')}, ${t.seconds ? 'ts' : day('ts')} AS bucket${t.seconds ? `, ${day('ts')} AS day` : ''}, ${t.aggregates}
      FROM ${t.source} GROUP BY ${t.keys.map((_, i) => i + 1).join(', ')}, ${t.keys.length + 1}
  ), ${t.name}_k AS (
    SELECT p.*, l.bucket AS last_bucket, ${run.map((c) => `l.${c}`).join(', ')}
      FROM (SELECT ${part.join(', ')}, min(bucket) AS start FROM ${t.name}_g GROUP BY ${part.join(', ')}) p
      LEFT JOIN LATERAL (SELECT x.${t.bucketCol} AS bucket, ${run.map((c) => `x.${c}`).join(', ')} FROM ${s}.${t.table} x
                          WHERE ${eq(t.keys, 'x', 'p')}${inPart.replaceAll('k.', 'p.')} ORDER BY x.${t.bucketCol} DESC LIMIT 1) l ON true
  ), ${t.name}_late AS (
    SELECT ${part.join(', ')}, start FROM ${t.name}_k k WHERE NOT (${append})
  ), ${t.name}_w AS (
    SELECT ${cols(t.keys, 'g')}, g.bucket, ${t.own.map((c) => `g.${c}`).join(', ')}${t.withLast ? `, g.last[5] AS ${LAST_COLUMNS[0]}, g.last[1] AS ${LAST_COLUMNS[1]}, g.last[2] AS ${LAST_COLUMNS[2]}, g.last[3] AS ${LAST_COLUMNS[3]}, g.last[4] AS ${LAST_COLUMNS[4]}` : ''},
           k.last_bucket,
           ${t.own.map((c) => `CASE WHEN ${append} THEN coalesce(k.run_${c}, 0) + sum(g.${c}) OVER w ELSE 0 END AS run_${c}`).join(',\n           ')}
      FROM ${t.name}_g g JOIN ${t.name}_k k ON ${eq(part, 'g', 'k')}
    WINDOW w AS (PARTITION BY ${cols(part, 'g')} ORDER BY g.bucket)
  ), ${t.name}_new AS (
    INSERT INTO ${s}.${t.table} (${columns})
    SELECT ${values} FROM ${t.name}_w WHERE last_bucket IS NULL OR bucket > last_bucket
  ), ${t.name} AS (
    INSERT INTO ${s}.${t.table} AS r (${columns})
    SELECT ${values} FROM ${t.name}_w WHERE bucket <= last_bucket
    ON CONFLICT (${t.keys.join(', ')}, ${t.bucketCol}) DO UPDATE SET
      ${t.own.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')},${
        t.withLast
          ? `\n      ${LAST_COLUMNS.map((c) => `${c} = CASE WHEN ${lastPos('EXCLUDED')} >= ${lastPos('r')} THEN EXCLUDED.${c} ELSE r.${c} END`).join(',\n      ')},`
          : ''
      }
      ${run.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
  )`;
}

/** The running-total CTEs of the batch's statement (after `ins` and `shares`), and each pool's recipients. */
export function runningCtes(s: string): string {
  return `${TABLES.map((t) => tableCtes(s, t)).join(', ')}, pool_recipients AS (
    INSERT INTO ${s}.fee_recipients (cluster, pool, recipient) SELECT DISTINCT cluster, pool, recipient FROM shares ON CONFLICT DO NOTHING
  )`;
}

/** The batch statement's result column: the late partitions of the four tables as one JSON object (null when none). */
export const LATE_COLUMN = `(SELECT CASE WHEN ${TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t.name}_late)`).join(' AND ')} THEN NULL
          ELSE json_build_object(${TABLES.map((t) => `'${t.name}', (SELECT coalesce(json_agg(${t.name}_late), '[]') FROM ${t.name}_late)`).join(', ')})::text END) AS late`;

/**
 * Recomputes `run_*` of the late partitions ($1: the batch statement's `late` JSON): for seconds
 * from the partition's earliest changed second to its day's end, for days from the earliest changed
 * day on; base = the last row before (in the same day for seconds) + the running sum of the rows'
 * own totals.
 */
export function recomputeRunningSql(s: string): string {
  const recompute = (t: RunningTable) => {
    const range = t.seconds ? ` AND f.ts < ${day('a.start')} + ${DAY}` : '';
    const floor = t.seconds ? ` AND p.ts >= ${day('a.start')}` : '';
    const keyTypes = t.keys.map((k) => `${k} text`).join(', ');
    return `${t.name} AS (
    UPDATE ${s}.${t.table} r SET ${t.own.map((c) => `run_${c} = x.run_${c}`).join(', ')}
      FROM (SELECT ${cols(t.keys, 'f')}, f.${t.bucketCol}, ${t.own.map((c) => `coalesce(b.run_${c}, 0) + sum(f.${c}) OVER w AS run_${c}`).join(', ')}
              FROM json_to_recordset($1::json -> '${t.name}') AS a(${keyTypes}, start int8)
              JOIN ${s}.${t.table} f ON ${eq(t.keys, 'f', 'a')} AND f.${t.bucketCol} >= a.start${range}
              LEFT JOIN LATERAL (SELECT ${t.own.map((c) => `p.run_${c}`).join(', ')} FROM ${s}.${t.table} p
                                  WHERE ${eq(t.keys, 'p', 'a')} AND p.${t.bucketCol} < a.start${floor}
                                  ORDER BY p.${t.bucketCol} DESC LIMIT 1) b ON true
            WINDOW w AS (PARTITION BY ${cols(t.keys, 'f')}, a.start ORDER BY f.${t.bucketCol})) x
     WHERE ${eq(t.keys, 'r', 'x')} AND r.${t.bucketCol} = x.${t.bucketCol}
  )`;
  };
  return `WITH ${TABLES.map(recompute).join(', ')} SELECT 1`;
}
