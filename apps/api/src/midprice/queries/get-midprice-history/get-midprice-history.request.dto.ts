import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  DEFAULT_CLUSTER,
  MIDPRICE_DEFAULT_LIMIT,
  MIDPRICE_DEFAULT_RANGE_SECONDS,
  MIDPRICE_DEFAULT_TIMEFRAME,
  MIDPRICE_MAX_BUCKETS,
  MIDPRICE_MAX_LIMIT,
  MIDPRICE_TIMEFRAMES,
  SPEC_ERROR_MESSAGES,
  type Cluster,
  type MidpriceTimeframe,
} from '@hadron/contracts/api';
import { ClusterParam } from '../../../http/common-params';
import { parseChoice, parseInteger, parseUnixSeconds, QueryParam } from '../../../http/query-params';
import { assertOrdered } from '../../../http/time-range';
import { GetMidpriceHistoryQuery } from './get-midprice-history.query';

export const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MIDPRICE_MAX_LIMIT} (default ${MIDPRICE_DEFAULT_LIMIT})`;
const parseTime = (v: unknown) => parseUnixSeconds(v, SPEC_ERROR_MESSAGES.invalidTimeRange);
const TIME_RULE = 'Digits only, 0..9999999999 (a negative, fractional, non-numeric or millisecond value is a 400).';

/** `GET /pools/{address}/midprice/history` query parameters (spec §3). */
export class GetMidpriceHistoryRequestDto {
  @ApiPropertyOptional({
    enum: MIDPRICE_TIMEFRAMES,
    default: MIDPRICE_DEFAULT_TIMEFRAME,
    example: '1h',
    description: `Sample interval, or \`raw\` for every recorded point. Sampled buckets are aligned to Unix-epoch multiples of the timeframe; at most ${MIDPRICE_MAX_BUCKETS} buckets per request (counted from the pool's first recorded hour).`,
  })
  @QueryParam((v) => parseChoice<MidpriceTimeframe>(v, MIDPRICE_TIMEFRAMES, SPEC_ERROR_MESSAGES.invalidTimeframe))
  timeframe: MidpriceTimeframe = MIDPRICE_DEFAULT_TIMEFRAME;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 9_999_999_999,
    example: 1763913600,
    description: `Range start, Unix seconds, inclusive. Default end_time − 86400 (not below 0). Must be <= end_time. ${TIME_RULE}`,
  })
  @QueryParam(parseTime)
  start_time?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 9_999_999_999,
    example: 1764000000,
    description: `Range end, Unix seconds, inclusive. Default: now. ${TIME_RULE}`,
  })
  @QueryParam(parseTime)
  end_time?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MIDPRICE_MAX_LIMIT,
    default: MIDPRICE_DEFAULT_LIMIT,
    example: 200,
    description:
      'Records per page, `raw` only (validated always). A page ends on a whole second, so it may hold fewer records; if one second alone holds more than `limit` records, that whole second is returned.',
  })
  @QueryParam((v) => parseInteger(v, 1, MIDPRICE_MAX_LIMIT, LIMIT_MESSAGE))
  limit: number = MIDPRICE_DEFAULT_LIMIT;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 9_999_999_999,
    example: 1763999000,
    description: `\`raw\` only (validated always): records strictly before this second, newest first. Pass the previous page's \`next_cursor\`. ${TIME_RULE}`,
  })
  @QueryParam((v) => parseUnixSeconds(v, SPEC_ERROR_MESSAGES.invalidCursor))
  cursor?: number;

  @ClusterParam()
  cluster: Cluster = DEFAULT_CLUSTER;

  toQuery(address: string, now: number): GetMidpriceHistoryQuery {
    const end = this.end_time ?? now;
    const start = this.start_time ?? Math.max(0, end - MIDPRICE_DEFAULT_RANGE_SECONDS);
    assertOrdered(start, end);
    return new GetMidpriceHistoryQuery(this.cluster, address, this.timeframe, start, end, this.limit, this.cursor);
  }
}
