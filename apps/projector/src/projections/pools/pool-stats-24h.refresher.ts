import { bucketCeil, bucketStart, coverWindow, DAY, HOUR, MINUTE, type RawRange } from '@hadron/domain';
import { runningDiff, runningThrough } from '@hadron/contracts/read/running-totals';
import type { SqlTx } from '@hadron/platform/event-log/event-log.port';

/**
 * The pool list's `volume.24h` / `fees.24h`, kept fresh every few seconds without scanning raw
 * swaps per request, for each pool with swaps in the last day: from the swaps running totals
 * (v3; O(active pools)), or from the rollups while an older swaps build is served.
 * It reads the swaps projection through the stable `read` views, so it follows that projection's
 * builds by itself; callers run it in a transaction holding the read-views lock shared (see
 * RefreshLeader), so a switch never drops a view under it. A row only moves forward in time: a
 * slower refresh computed for an earlier `now` never overwrites a newer one.
 */
export async function refreshPoolStats24h(tx: SqlTx, schema: string, nowSec: number): Promise<void> {
  const { rows } = await tx.query<{ version: number }>(`SELECT version FROM read.projection_status WHERE projection = 'swaps'`);
  // swaps v3 keeps running totals (and no hour/minute rollup tables); v1 and v2 keep the rollups.
  if ((rows[0]?.version ?? 0) >= 3) return fromRunningTotals(tx, schema, nowSec);
  return fromRollups(tx, schema, nowSec);
}

/**
 * swaps v3: the window [now − 24 h, now] is the running totals through now + 1 minus those through
 * now − 24 h (`@hadron/contracts/read/running-totals`): four index lookups per pool, exact to the
 * second (the same window as the fees endpoint's `24h`). Pools: those with a day row since the
 * window's first day, and those whose stats are not zero yet.
 */
async function fromRunningTotals(tx: SqlTx, schema: string, nowSec: number): Promise<void> {
  const start = nowSec - DAY;
  const [x0, x1] = [start, nowSec + 1];
  const key = 'cluster = c.cluster AND pool = c.pool';
  const cols = ['volume_q32', 'spread_q32', 'protocol_fee_q32', 'swap_count'];
  await tx.query(
    `WITH ${candidates(schema, `read.fee_running_day WHERE day_start >= ${int(bucketStart(start, DAY))}`)}, calc AS (
       SELECT c.cluster, c.pool, ${runningDiff('volume_q32')} AS volume, ${runningDiff('spread_q32')} AS spread,
              ${runningDiff('protocol_fee_q32')} AS fee, ${runningDiff('swap_count')} AS n
         FROM candidates c ${runningThrough('hi', cols, 'fee_running', key, int(x1), int(bucketStart(x1, DAY)))}
                           ${runningThrough('lo', cols, 'fee_running', key, int(x0), int(bucketStart(x0, DAY)))}
     )
     ${UPSERT(schema, start, nowSec)}`,
  );
}

/**
 * swaps v1 / v2 (served until v3's switch): the window [now − 24 h, now] summed exactly from whole
 * hours (read.fee_rollup_hourly), whole minutes at the leading edge (read.fee_rollup_minute), and
 * at most one partial minute of raw swaps (read.swaps); the current hour's rollup taken whole.
 */
async function fromRollups(tx: SqlTx, schema: string, nowSec: number): Promise<void> {
  const start = nowSec - DAY;
  const cover = coverWindow(start, bucketCeil(nowSec + 1, HOUR), [HOUR, MINUTE]);
  const ranges = (col: string, rs: readonly RawRange[]) =>
    rs.length === 0 ? 'false' : rs.map((r) => `(${col} >= ${int(r.from)} AND ${col} < ${int(r.to)})`).join(' OR ');
  const hours = ranges(
    'x.hour_start',
    cover.runs.filter((r) => r.size === HOUR),
  );
  const minutes = ranges(
    'x.minute_start',
    cover.runs.filter((r) => r.size === MINUTE),
  );
  const raw = ranges('x.ts', cover.raw);
  const sums = 'sum(x.volume_q32) AS volume, sum(x.spread_q32) AS spread, sum(x.protocol_fee_q32) AS fee';
  await tx.query(
    `WITH ${candidates(schema, `read.fee_rollup_hourly WHERE hour_start >= ${int(bucketStart(start, HOUR))}`)}, calc AS (
       SELECT c.cluster, c.pool,
              COALESCE(h.volume, 0) + COALESCE(m.volume, 0) + COALESCE(r.volume, 0) AS volume,
              COALESCE(h.spread, 0) + COALESCE(m.spread, 0) + COALESCE(r.spread, 0) AS spread,
              COALESCE(h.fee, 0) + COALESCE(m.fee, 0) + COALESCE(r.fee, 0) AS fee,
              COALESCE(h.n, 0) + COALESCE(m.n, 0) + COALESCE(r.n, 0) AS n
         FROM candidates c
         LEFT JOIN LATERAL (SELECT ${sums}, sum(x.swap_count) AS n FROM read.fee_rollup_hourly x
                             WHERE x.cluster = c.cluster AND x.pool = c.pool AND (${hours})) h ON true
         LEFT JOIN LATERAL (SELECT ${sums}, sum(x.swap_count) AS n FROM read.fee_rollup_minute x
                             WHERE x.cluster = c.cluster AND x.pool = c.pool AND (${minutes})) m ON true
         LEFT JOIN LATERAL (SELECT ${sums}, count(*) AS n FROM read.swaps x
                             WHERE x.cluster = c.cluster AND x.pool = c.pool AND (${raw})) r ON true
     )
     ${UPSERT(schema, start, nowSec)}`,
  );
}

/** The pools to refresh: those with swaps since `activeSince` (a view and its condition), and those whose stats are not zero yet. */
const candidates = (schema: string, activeSince: string) => `candidates AS (
       SELECT DISTINCT cluster, pool FROM ${activeSince}
       UNION
       SELECT cluster, pool FROM ${schema}.pool_stats_24h WHERE swap_count > 0
     )`;

/** Writes `calc` (cluster, pool, volume, spread, fee, n) for the window; a row only moves forward in time. */
const UPSERT = (schema: string, start: number, nowSec: number) => `
     INSERT INTO ${schema}.pool_stats_24h AS t
            (cluster, pool, window_start, window_end, volume_q32, spread_q32, protocol_fee_q32, fees_q32, swap_count, refreshed_at)
     SELECT cluster, pool, ${int(start)}, ${int(nowSec)}, volume, spread, fee, spread + fee, n, now() FROM calc
     ON CONFLICT (cluster, pool) DO UPDATE SET
       window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end, volume_q32 = EXCLUDED.volume_q32,
       spread_q32 = EXCLUDED.spread_q32, protocol_fee_q32 = EXCLUDED.protocol_fee_q32, fees_q32 = EXCLUDED.fees_q32,
       swap_count = EXCLUDED.swap_count, refreshed_at = EXCLUDED.refreshed_at
     WHERE t.window_end <= EXCLUDED.window_end`;

function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an integer time: ${n}`);
  return String(n);
}
