import { Query } from '@nestjs/cqrs';
import type { Cluster, FeeInterval, PoolFeesReport, RawAmountFormat } from '@hadron/contracts/api';

export class GetPoolFeesQuery extends Query<PoolFeesReport> {
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
