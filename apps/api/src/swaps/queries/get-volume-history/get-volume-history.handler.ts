import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { bucketStart, DAY, q32ToQuoteNumber } from '@hadron/domain';
import { batchable } from '../../../database/batched-statement';
import { intOf } from '../../../database/numeric';
import { ReadDb } from '../../../database/read-db';
import { poolNotFound } from '../../../http/api-exception.filter';
import { jsonTextWithItems, type JsonText } from '../../../http/json';
import { PoolDirectory } from '../../../pools/pool-directory';
import { GetVolumeHistoryQuery } from './get-volume-history.query';

/**
 * Batchable (ReadDb.batched): under load, the histories asked for at the same time share a round
 * trip. A batch's rows come back in no set order, so the handler puts them in day order (inDayOrder).
 */
const VOLUME = batchable(
  'api-volume-history',
  `SELECT day_start, volume_q32, fees_q32 FROM read.volume_daily
  WHERE cluster = $1 AND pool = $2 AND day_start >= $3 AND day_start <= $4 ORDER BY day_start`,
  ['text', 'text', 'int8', 'int8'],
);

/** A day's row as the database returns it: [day_start, volume_q32, fees_q32] (int8 and numeric as text). */
export type VolumeRow = [string, string, string];

/** `rows` ascending by day: as they are when they already are (the usual case), else sorted. */
export function inDayOrder(rows: VolumeRow[]): VolumeRow[] {
  for (let i = 1; i < rows.length; i++) {
    if (Number(rows[i - 1][0]) > Number(rows[i][0])) return rows.sort((a, b) => Number(a[0]) - Number(b[0]));
  }
  return rows;
}

/** A JSON number as toJson writes it. */
const jsonNumber = (n: number): string => (Number.isFinite(n) ? String(n) : 'null');

const Q32 = 4_294_967_296;

/**
 * A Q32 quote-atom amount (integer text of a numeric column) in quote units, as JSON: what
 * `jsonNumber(q32ToQuoteNumber(intOf(text), decimalsY))` writes, without its exact decimal (BigInt
 * arithmetic and a ~40-digit string per value). Both are the double nearest to
 * text / (2^32 × 10^decimalsY): Number() of a decimal literal rounds correctly, `textE-decimalsY`
 * is the exact quotient by 10^decimalsY, and dividing by 2^32 is exact while the result stays far
 * from the subnormal and overflow ranges (the length bounds). Text with a fraction, or that is no
 * number, takes the exact path (and its errors). volume-bucket.spec.ts checks both ways agree.
 */
export function quoteAmountJson(text: string, decimalsY: number): string {
  if (decimalsY <= 280 && text.length <= 300 && !text.includes('.')) {
    const units = Number(`${text}e-${decimalsY}`);
    if (!Number.isNaN(units)) return jsonNumber(units / Q32);
  }
  return jsonNumber(q32ToQuoteNumber(intOf(text), decimalsY));
}

/**
 * One VolumeBucketDto as JSON, written straight from its day and row (undefined: a day without
 * swaps, zeros): what toJson writes for `{timestamp, volume, fees}`. volume-bucket.spec.ts checks it.
 */
export function volumeBucketJson(day: number, row: VolumeRow | undefined, decimalsY: number): string {
  if (row === undefined) return `{"timestamp":${day},"volume":0,"fees":0}`;
  return `{"timestamp":${day},"volume":${quoteAmountJson(row[1], decimalsY)},"fees":${quoteAmountJson(row[2], decimalsY)}}`;
}

/**
 * The body of a volume history: every UTC day of [firstDay, lastDay], ascending, each day's bucket
 * from its row (`rows` ascending by day, at most one per day) or zeros, written slice by slice of
 * the event loop (up to VOLUME_MAX_DAYS buckets; see jsonTextWithItems).
 */
export function volumeHistoryJson(envelope: object, firstDay: number, lastDay: number, rows: readonly VolumeRow[], decimalsY: number): Promise<JsonText> {
  const days = Array.from({ length: (lastDay - firstDay) / DAY + 1 }, (_, i) => firstDay + i * DAY);
  let next = 0;
  return jsonTextWithItems(envelope, days, (day) => {
    while (next < rows.length && Number(rows[next][0]) < day) next++;
    return volumeBucketJson(day, next < rows.length && Number(rows[next][0]) === day ? rows[next] : undefined, decimalsY);
  });
}

/**
 * UTC-day buckets from the daily rollup (DESIGN §5): every day the range touches, ascending,
 * whole-day totals, zero-filled; `timestamp` = the day's midnight. Rows as arrays, buckets written
 * straight to JSON (no object per row or bucket).
 */
@QueryHandler(GetVolumeHistoryQuery)
export class GetVolumeHistoryHandler implements IQueryHandler<GetVolumeHistoryQuery> {
  constructor(
    private readonly db: ReadDb,
    private readonly pools: PoolDirectory,
  ) {}

  async execute(q: GetVolumeHistoryQuery): Promise<JsonText> {
    const pool = await this.pools.find(q.cluster, q.address);
    if (!pool) throw poolNotFound();
    const firstDay = bucketStart(q.startTime, DAY);
    const lastDay = bucketStart(q.endTime, DAY);
    const rows = inDayOrder(await this.db.batchedArrays<VolumeRow>(VOLUME, [q.cluster, q.address, firstDay, lastDay]));
    return volumeHistoryJson({ start_time: q.startTime, end_time: q.endTime, timeframe: '24h' }, firstDay, lastDay, rows, pool.decimalsY);
  }
}
