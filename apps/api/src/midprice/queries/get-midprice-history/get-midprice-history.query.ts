import { Query } from '@nestjs/cqrs';
import type { Cluster, MidpriceHistoryResponse, MidpriceTimeframe } from '@hadron/contracts/api';

export class GetMidpriceHistoryQuery extends Query<MidpriceHistoryResponse> {
  constructor(
    readonly cluster: Cluster,
    readonly address: string,
    readonly timeframe: MidpriceTimeframe,
    /** Inclusive Unix seconds, start <= end. */
    readonly startTime: number,
    readonly endTime: number,
    /** `raw` only: page size, and "strictly before this second". */
    readonly limit: number,
    readonly cursor: number | undefined,
  ) {
    super();
  }
}
