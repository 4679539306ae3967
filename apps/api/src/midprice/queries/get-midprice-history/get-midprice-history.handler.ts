import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { MIDPRICE_MAX_BUCKETS, TIMEFRAME_SECONDS, type SampledTimeframe } from '@hadron/contracts/api';
import { q32Json, sampleJsonSql } from '@hadron/contracts/read/midprice-sample-json';
import { bucketCount, HOUR, MINUTE } from '@hadron/domain';
import { invalidParameter, poolNotFound } from '../../../http/api-exception.filter';
import { jsonInt8, jsonString, jsonTextWithData, jsonTextWithItems, type JsonText } from '../../../http/json';
import { batchable, type BatchableStatement, type ParamType } from '../../../database/batched-statement';
import { ReadDb } from '../../../database/read-db';
import { PoolDirectory } from '../../../pools/pool-directory';
import { GetMidpriceHistoryQuery } from './get-midprice-history.query';
import { FIVE_MINUTES, planSampled } from './midprice-plan';
import { cutRawPage } from './raw-page';

/** A point's time and chain position but its id (`id` on a point, `point_id` on a rollup's row). */
const POSITION = 'ts, slot, tx_index, ix_index, inner_index';
const POINT = `${POSITION}, id, signature, midprice_q32, spread_factor_q32`;
const NEWEST_FIRST = 'slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, id DESC';

/**
 * A query's `column`s joined by `separator` into one value (null for none), in the query's order:
 * an aggregate over a subquery reads the rows in the order the subquery returns them (ORDER BY
 * inside string_agg would sort them again).
 */
const joined = (column: string, separator: string) => (sql: string) => `SELECT string_agg(${column}, ${separator}) FROM (${sql}) rows`;

/** A query's `item`s (each a sample's JSON) joined by commas: the body's `data` as it is. */
const inItems = joined('item', "','");

/** A query's `item`s (each a sample's JSON, which never holds a raw line break) joined by line breaks: the API reads each one's timestamp. */
const inLines = joined('item', "E'\\n'");

/** A range of the sampled plan as SQL: a rollup's rows (the last point of each unit) or raw points, `[$from, $to)`. */
interface Branch {
  /** The units' table and key, or null for raw points. */
  unit: { table: string; key: string } | null;
  from: number;
  to: number;
}

const HOURS = { table: 'read.midprice_hourly', key: 'hour_start' };
const FIVE_MINUTE_UNITS = { table: 'read.midprice_five_minute', key: 'five_minute_start' };
const MINUTE_UNITS = { table: 'read.midprice_minute', key: 'minute_start' };

/** $3 bucket size; $4/$5 whole hours; $6..$9 whole 5 minutes; $10..$13 whole minutes; $14..$17 raw partial minutes. */
const BRANCHES: readonly Branch[] = [
  { unit: HOURS, from: 4, to: 5 },
  { unit: FIVE_MINUTE_UNITS, from: 6, to: 7 },
  { unit: FIVE_MINUTE_UNITS, from: 8, to: 9 },
  { unit: MINUTE_UNITS, from: 10, to: 11 },
  { unit: MINUTE_UNITS, from: 12, to: 13 },
  { unit: null, from: 14, to: 15 },
  { unit: null, from: 16, to: 17 },
];

/**
 * A branch's rows: each one's chain position and its sample JSON but the timestamp, as every read
 * view gives it (`sample_json`: stored by the build, or derived in an older build's view). From
 * midprice v9 on, a point's is made of what the points' key holds, so a raw edge is an
 * index-only scan, as the raw page is.
 */
const branchRows = ({ unit, from, to }: Branch): string =>
  unit === null
    ? `(WITH edge AS MATERIALIZED (${edgeFromMinute(from, to)})
      SELECT * FROM edge
      UNION ALL
      SELECT ${POSITION}, id, sample_json FROM read.midprice_points WHERE cluster = $1 AND pool = $2 AND ts >= $${from} AND ts < $${to}
        AND NOT EXISTS (SELECT FROM edge))`
    : `SELECT ${POSITION}, point_id AS id, sample_json FROM ${unit.table} WHERE cluster = $1 AND pool = $2 AND ${unit.key} >= $${from} AND ${unit.key} < $${to}`;

/**
 * A raw edge's answer from the minute rollup, when it has one. An edge `[$from, $to)` inside one
 * minute needs only its last point by chain position; the minute's row holds the last point of
 * the whole minute, so when that point's time lies in the edge, it is the edge's last point too,
 * and the edge's raw points are not read (the minute's row is looked up once, `edge`, and the
 * raw scan runs only when it gave nothing). It does so for most starting edges of a dense pool (a
 * minute's last point comes late in it); an ending edge, or one that spans two minutes (a window
 * without a whole minute), reads its raw points as before. On the bench's 10^6-point pool, whose
 * 3.2 GB points key Postgres's buffers do not hold, each raw edge read a page from outside them,
 * 65-95 µs; a sparse pool's edges pay the lookup, about 5 µs each (docs/performance-record.md,
 * 2026-12-03).
 */
const edgeFromMinute = (from: number, to: number): string =>
  `SELECT ${POSITION}, point_id AS id, sample_json FROM read.midprice_minute
        WHERE cluster = $1 AND pool = $2 AND minute_start = $${from} - $${from} % ${MINUTE} AND ts >= $${from} AND ts < $${to}
          AND $${to} <= minute_start + ${MINUTE}`;

/** The last point of each bucket that the branches' rows touch, as `bucket, item`, by bucket. */
const lastOfEachBucket = (branches: readonly Branch[]): string => `SELECT bucket, ${sampleJsonSql('bucket', 'sample_json')} AS item FROM (
    SELECT DISTINCT ON (bucket) bucket, sample_json
      FROM (SELECT *, ts - ((ts % $3::int8) + $3::int8) % $3::int8 AS bucket FROM (${branches.map(branchRows).join('\n      UNION ALL ')}) c) x
     ORDER BY bucket, ${NEWEST_FIRST}) s`;

/** A run whose rows are read as they are (`sampledSql`): its branch, and each row's `item` (a sample's JSON, or several joined). */
interface Aligned {
  branch: Branch;
  item: string;
}

/** Each row of a run of `unit`s is one bucket of the unit's size: its last point, with its stored `sample_json`. */
const eachRowItsBucket = (branch: Branch): Aligned => ({ branch, item: sampleJsonSql(branch.unit!.key, 'sample_json') });

/**
 * The sampled query: the samples' JSON, joined by commas in bucket order, as one value (null for
 * none), so the API writes no sample itself (a day of 5m on the bench's 10^6-point pool, 50
 * connections: 1,670–1,824 → 2,125–2,855 req/s and API CPU 439–476 → 229–329 µs per request,
 * measured on a prototype of this path). In general the last point of each bucket is picked
 * (DISTINCT ON, which sorts every row read) among the rows of all seven ranges. When each row of
 * the plan's largest run answers whole buckets of its own (`aligned`): 1m and 1h, whose bucket is
 * that unit, each row its bucket's last point; 5m and 30m, whose whole hours each hold the
 * samples of their twelve 5 minutes or two half hours (midprice v6's hour items), no other range
 * reaches into those buckets (they lie outside the run): its rows come straight from the index in
 * bucket order (a Merge Append, no sort), merged with the edges' few buckets.
 */
function sampledSql(aligned?: Aligned): string {
  if (!aligned) return inItems(`SELECT item FROM (${lastOfEachBucket(BRANCHES)}) u ORDER BY bucket`);
  const { branch, item } = aligned;
  const { table, key } = branch.unit!;
  return inItems(`SELECT item FROM (
    (SELECT ${key} AS bucket, ${item} AS item FROM ${table}
      WHERE cluster = $1 AND pool = $2 AND ${key} >= $${branch.from} AND ${key} < $${branch.to} ORDER BY ${key})
    UNION ALL
    ${lastOfEachBucket(BRANCHES.filter((b) => b !== branch))}) u ORDER BY bucket`);
}

/** $1 cluster, $2 pool, $3 bucket size, $4..$17 the ranges' bounds. */
const SAMPLED_TYPES: readonly ParamType[] = ['text', 'text', ...Array<ParamType>(15).fill('int8')];
const sampled = (name: string, aligned?: Aligned) => batchable(name, sampledSql(aligned), SAMPLED_TYPES);

/**
 * The statement for a bucket size. A day of 5m on the bench's 10^6-point pool reads 24 hourly
 * rows instead of 288 five-minute rows, and 30m picks among none (measured in the README,
 * 2026-11-29 afternoon).
 */
const SAMPLED: ReadonlyMap<number, BatchableStatement> = new Map([
  [HOUR, sampled('api-midprice-sampled-hours', eachRowItsBucket(BRANCHES[0]))],
  [TIMEFRAME_SECONDS['30m'], sampled('api-midprice-sampled-thirty-minutes', { branch: BRANCHES[0], item: 'thirty_minute_items' })],
  [FIVE_MINUTES, sampled('api-midprice-sampled-five-minutes', { branch: BRANCHES[0], item: 'five_minute_items' })],
  [MINUTE, sampled('api-midprice-sampled-minutes', eachRowItsBucket(BRANCHES[3]))],
]);
const SAMPLED_ANY = sampled('api-midprice-sampled');

const FIRST_HOUR_SQL = `SELECT min(hour_start) AS first FROM read.midprice_hourly WHERE cluster = $1 AND pool = $2`;

/**
 * Newest first, [start, upper): each point's sample JSON (its `sample_json`, stored by midprice v7,
 * derived in an older build's view), joined by line breaks into one value (a sample's JSON never
 * holds one: to_json escapes it, a v7 point's signature is base58), so that the API cuts the page
 * on whole seconds (cutRawPage) and joins the items it keeps without writing a number. node-postgres's
 * cost is per field and per row. Measured on the bench's dataset, old and new API alternated, the
 * 50/200-point mix: docs/performance-record.md, 2026-11-29 (evening). From midprice v9 on, the
 * points' primary key is this order and holds what `sample_json` is made of, so the page is an
 * index-only scan read backwards, with no sort (2026-12-02, afternoon).
 */
const RAW = batchable(
  'api-midprice-raw',
  inLines(`SELECT ${sampleJsonSql('ts', 'sample_json')} AS item FROM read.midprice_points
  WHERE cluster = $1 AND pool = $2 AND ts >= $3 AND ts < $4 ORDER BY ts DESC, ${NEWEST_FIRST} LIMIT $5`),
  ['text', 'text', 'int8', 'int8', 'int8'],
);

/** Where a sample's JSON has its timestamp's digits: after `{"timestamp":`, up to the next comma. */
const TIMESTAMP_AT = '{"timestamp":'.length;

/** A sample's timestamp, read from its JSON. */
export const timestampOfSample = (json: string): number => Number(json.slice(TIMESTAMP_AT, json.indexOf(',', TIMESTAMP_AT)));

/** Every point of second $3, plus the newest older point in range (is there a next page?). */
const SECOND_SQL = `SELECT false AS older, ${POINT} FROM read.midprice_points WHERE cluster = $1 AND pool = $2 AND ts = $3
  UNION ALL
  (SELECT true, ${POINT} FROM read.midprice_points WHERE cluster = $1 AND pool = $2 AND ts >= $4 AND ts < $3
    ORDER BY ts DESC LIMIT 1)`;

interface PointRow {
  ts: string;
  slot: string;
  tx_index: number;
  ix_index: number;
  inner_index: number;
  id: string;
  signature: string | null;
  midprice_q32: string | null;
  spread_factor_q32: string | null;
}

/** A point with its chain position as numbers (slots and seconds are far below 2^53). */
interface Point {
  ts: number;
  slot: number;
  tx: number;
  ix: number;
  inner: number;
  id: string;
  signature: string | null;
  midprice_q32: string | null;
  spread_factor_q32: string | null;
}

const toPoint = (r: PointRow): Point => ({
  ts: Number(r.ts),
  slot: Number(r.slot),
  tx: r.tx_index,
  ix: r.ix_index,
  inner: r.inner_index,
  id: r.id,
  signature: r.signature,
  midprice_q32: r.midprice_q32,
  spread_factor_q32: r.spread_factor_q32,
});

/** A sample: [timestamp (bucket or ts), slot, signature as its JSON value, midprice_q32, spread_factor_q32]. */
export type SampleRow = [string | number, string | number, string, string | null, string | null];

/** The spread factor last written, and its JSON: a pool parameter, the same sample after sample. */
let lastSpread: string | null = null;
let lastSpreadJson = 'null';

/**
 * One MidpriceSampleDto as JSON, written straight from its row: what toJson writes for
 * `{timestamp, slot, midprice, base_spread_factor, signature}` (midprice and spread Q32-decoded as
 * JSON numbers; timestamp and slot are int8, see jsonInt8). midprice-sample.spec.ts checks it
 * against toJson.
 */
export function sampleJson(r: SampleRow): string {
  if (r[4] !== lastSpread) lastSpreadJson = q32Json((lastSpread = r[4]));
  return `{"timestamp":${jsonInt8(r[0])},"slot":${jsonInt8(r[1])},"midprice":${q32Json(r[3])},"base_spread_factor":${lastSpreadJson},"signature":${r[2]}}`;
}

function newestFirst(a: Point, b: Point): number {
  return b.ts - a.ts || b.slot - a.slot || b.tx - a.tx || b.ix - a.ix || b.inner - a.inner || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

@QueryHandler(GetMidpriceHistoryQuery)
export class GetMidpriceHistoryHandler implements IQueryHandler<GetMidpriceHistoryQuery> {
  constructor(
    private readonly db: ReadDb,
    private readonly pools: PoolDirectory,
  ) {}

  async execute(q: GetMidpriceHistoryQuery): Promise<JsonText> {
    if (!(await this.pools.find(q.cluster, q.address))) throw poolNotFound();
    return q.timeframe === 'raw' ? this.raw(q) : this.sampled(q, q.timeframe);
  }

  private async sampled(q: GetMidpriceHistoryQuery, timeframe: SampledTimeframe): Promise<JsonText> {
    const plan = planSampled(timeframe, q.startTime, q.endTime);
    await this.assertBucketLimit(q, timeframe, plan.size);
    const [f1, f2] = plan.fiveMinutes;
    const [m1, m2] = plan.minutes;
    const [r1, r2] = plan.raw;
    const [[items]] = await this.db.batchedArrays<[string | null]>(SAMPLED.get(plan.size) ?? SAMPLED_ANY, [
      q.cluster,
      q.address,
      plan.size,
      plan.hours.from,
      plan.hours.to,
      f1.from,
      f1.to,
      f2.from,
      f2.to,
      m1.from,
      m1.to,
      m2.from,
      m2.to,
      r1.from,
      r1.to,
      r2.from,
      r2.to,
    ]);
    return jsonTextWithData({ start_time: q.startTime, end_time: q.endTime, timeframe }, items);
  }

  /**
   * At most MIDPRICE_MAX_BUCKETS buckets, counted from the pool's first recorded hour when the
   * range starts earlier (so `start_time=0` works for any pool with a bounded history).
   */
  private async assertBucketLimit(q: GetMidpriceHistoryQuery, timeframe: SampledTimeframe, size: number): Promise<void> {
    if (bucketCount(size, q.startTime, q.endTime) <= MIDPRICE_MAX_BUCKETS) return;
    const [row] = await this.db.query<{ first: string | null }>('api-midprice-first-hour', FIRST_HOUR_SQL, [q.cluster, q.address]);
    const from = Math.max(q.startTime, row?.first === null || row === undefined ? q.endTime : Number(row.first));
    const count = from > q.endTime ? 0 : bucketCount(size, from, q.endTime);
    if (count > MIDPRICE_MAX_BUCKETS) {
      throw invalidParameter(
        'start_time',
        `The range holds ${count} buckets of timeframe ${timeframe}; at most ${MIDPRICE_MAX_BUCKETS} are returned per request: narrow start_time/end_time or use a larger timeframe`,
      );
    }
  }

  private async raw(q: GetMidpriceHistoryQuery): Promise<JsonText> {
    const envelope = (nextCursor: number | null) => ({ start_time: q.startTime, end_time: q.endTime, timeframe: 'raw', next_cursor: nextCursor });
    const upper = Math.min(q.endTime + 1, q.cursor ?? Number.MAX_SAFE_INTEGER);
    if (upper <= q.startTime) return jsonTextWithData(envelope(null), null);
    const [[text]] = await this.db.batchedArrays<[string | null]>(RAW, [q.cluster, q.address, q.startTime, upper, q.limit + 1]);
    const cut = cutRawPage(text === null ? [] : text.split('\n'), q.limit, timestampOfSample);
    if (cut.kind === 'page') {
      const last = cut.page.at(-1);
      return jsonTextWithData(envelope(cut.more && last !== undefined ? timestampOfSample(last) : null), cut.page.join(','));
    }
    const second = await this.db.query<PointRow & { older: boolean }>('api-midprice-second', SECOND_SQL, [q.cluster, q.address, cut.second, q.startTime]);
    const page = second
      .filter((r) => !r.older)
      .map(toPoint)
      .sort(newestFirst)
      .map((p): SampleRow => [p.ts, p.slot, jsonString(p.signature), p.midprice_q32, p.spread_factor_q32]);
    const more = second.some((r) => r.older);
    return jsonTextWithItems(envelope(more && page.length > 0 ? Number(page[page.length - 1][0]) : null), page, sampleJson);
  }
}
