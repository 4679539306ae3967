import { ApiPropertyOptional } from '@nestjs/swagger';
import { DEFAULT_CLUSTER, FEE_DEFAULT_INTERVAL, FEE_INTERVALS, type Cluster, type FeeInterval, type RawAmountFormat } from '@hadron/contracts/api';
import { ClusterParam, RawAmountsParam } from '../../../http/common-params';
import { parseChoice, QueryParam } from '../../../http/query-params';

export const INTERVAL_MESSAGE = `interval must be one of: ${FEE_INTERVALS.join(', ')} (default ${FEE_DEFAULT_INTERVAL})`;

/** `GET /pools/{address}/fees` query parameters (spec §2). */
export class GetPoolFeesRequestDto {
  @ApiPropertyOptional({
    enum: FEE_INTERVALS,
    default: FEE_DEFAULT_INTERVAL,
    example: '24h',
    description: 'Lookback window ending now: [now − length, now]; `all` aggregates the full history (start_time 0).',
  })
  @QueryParam((v) => parseChoice<FeeInterval>(v, FEE_INTERVALS, INTERVAL_MESSAGE))
  interval: FeeInterval = FEE_DEFAULT_INTERVAL;

  @ClusterParam()
  cluster: Cluster = DEFAULT_CLUSTER;

  @RawAmountsParam()
  raw_amounts: RawAmountFormat = 'number';
}
