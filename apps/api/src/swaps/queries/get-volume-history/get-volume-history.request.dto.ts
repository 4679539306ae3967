import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  DEFAULT_CLUSTER,
  SPEC_ERROR_MESSAGES,
  VOLUME_DEFAULT_RANGE_SECONDS,
  VOLUME_MAX_DAYS,
  VOLUME_TIMEFRAMES,
  type Cluster,
  type VolumeTimeframe,
} from '@hadron/contracts/api';
import { bucketCount, DAY } from '@hadron/domain';
import { ClusterParam } from '../../../http/common-params';
import { parseChoice, parseUnixSeconds, QueryParam } from '../../../http/query-params';
import { invalidParameter } from '../../../http/api-exception.filter';
import { assertOrdered } from '../../../http/time-range';
import { GetVolumeHistoryQuery } from './get-volume-history.query';

const parseTime = (v: unknown) => parseUnixSeconds(v, SPEC_ERROR_MESSAGES.invalidTimeRange);

/** `GET /pools/{address}/volume/history` query parameters (spec §4). */
export class GetVolumeHistoryRequestDto {
  @ApiPropertyOptional({
    enum: VOLUME_TIMEFRAMES,
    default: '24h',
    example: '24h',
    description: 'Bucket size; only `24h` in v1 (sub-day sizes are planned). Anything else: 400 `Only 24h timeframe is supported for volume history in v1`.',
  })
  @QueryParam((v) => parseChoice<VolumeTimeframe>(v, VOLUME_TIMEFRAMES, SPEC_ERROR_MESSAGES.volumeTimeframe))
  timeframe: VolumeTimeframe = '24h';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 9_999_999_999,
    example: 1763395200,
    description: 'Range start, Unix seconds (digits only, 0..9999999999). Default: 7 days before now. Must be <= end_time.',
  })
  @QueryParam(parseTime)
  start_time?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 9_999_999_999, example: 1764000000, description: 'Range end, Unix seconds. Default: now.' })
  @QueryParam(parseTime)
  end_time?: number;

  @ClusterParam()
  cluster: Cluster = DEFAULT_CLUSTER;

  toQuery(address: string, now: number): GetVolumeHistoryQuery {
    const start = this.start_time ?? Math.max(0, now - VOLUME_DEFAULT_RANGE_SECONDS);
    const end = this.end_time ?? now;
    assertOrdered(start, end, this.start_time === undefined ? ' (start_time defaults to 7 days before now)' : '');
    const days = bucketCount(DAY, start, end);
    if (days > VOLUME_MAX_DAYS) {
      throw invalidParameter(
        'start_time',
        `The range spans ${days} days; volume history returns at most ${VOLUME_MAX_DAYS} daily buckets per request: narrow start_time/end_time`,
      );
    }
    return new GetVolumeHistoryQuery(this.cluster, address, start, end);
  }
}
