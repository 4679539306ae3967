import { Query } from '@nestjs/cqrs';
import type { Cluster, FeeInterval, RawAmountFormat } from '@hadron/contracts/api';
import type { PoolFeesReportDto } from './get-pool-fees.response.dto';

export class GetPoolFeesQuery extends Query<PoolFeesReportDto> {
  constructor(
    readonly cluster: Cluster,
    readonly address: string,
    readonly interval: FeeInterval,
    /** Request time, Unix seconds: the window is [endTime − length, endTime] (0 for `all`). */
    readonly endTime: number,
    readonly rawAmounts: RawAmountFormat = 'number',
  ) {
    super();
  }
}
