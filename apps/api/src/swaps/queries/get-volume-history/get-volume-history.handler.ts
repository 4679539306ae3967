import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { bucketStart, DAY, q32ToQuoteNumber } from '@hadron/domain';
import { intOf } from '../../../database/numeric';
import { ReadDb } from '../../../database/read-db';
import { poolNotFound } from '../../../http/api-exception.filter';
import { mapInSlices } from '../../../http/json';
import { PoolDirectory } from '../../../pools/pool-directory';
import { GetVolumeHistoryQuery } from './get-volume-history.query';
import type { VolumeBucketDto, VolumeHistoryResponseDto } from './get-volume-history.response.dto';

const VOLUME_SQL = `SELECT day_start, volume_q32, fees_q32 FROM read.volume_daily
  WHERE cluster = $1 AND pool = $2 AND day_start >= $3 AND day_start <= $4 ORDER BY day_start`;

/**
 * UTC-day buckets from the daily rollup (DESIGN §5): every day the range touches, ascending,
 * whole-day totals, zero-filled; `timestamp` = the day's midnight.
 */
@QueryHandler(GetVolumeHistoryQuery)
export class GetVolumeHistoryHandler implements IQueryHandler<GetVolumeHistoryQuery> {
  constructor(
    private readonly db: ReadDb,
    private readonly pools: PoolDirectory,
  ) {}

  async execute(q: GetVolumeHistoryQuery): Promise<VolumeHistoryResponseDto> {
    const pool = await this.pools.find(q.cluster, q.address);
    if (!pool) throw poolNotFound();
    const firstDay = bucketStart(q.startTime, DAY);
    const lastDay = bucketStart(q.endTime, DAY);
    const rows = await this.db.query<{ day_start: string; volume_q32: string; fees_q32: string }>('api-volume-history', VOLUME_SQL, [
      q.cluster,
      q.address,
      firstDay,
      lastDay,
    ]);
    const byDay = new Map(rows.map((r) => [Number(r.day_start), r]));
    const days = Array.from({ length: (lastDay - firstDay) / DAY + 1 }, (_, i) => firstDay + i * DAY);
    // Up to VOLUME_MAX_DAYS buckets: built a slice per turn of the event loop (see mapInSlices).
    const data: VolumeBucketDto[] = await mapInSlices(days, (day) => {
      const r = byDay.get(day);
      return {
        timestamp: day,
        volume: r ? q32ToQuoteNumber(intOf(r.volume_q32), pool.decimalsY) : 0,
        fees: r ? q32ToQuoteNumber(intOf(r.fees_q32), pool.decimalsY) : 0,
      };
    });
    return { start_time: q.startTime, end_time: q.endTime, timeframe: '24h', data };
  }
}
