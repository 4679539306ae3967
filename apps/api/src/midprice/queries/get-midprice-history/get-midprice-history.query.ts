import { Query } from '@nestjs/cqrs';
import type { Cluster, MidpriceTimeframe } from '@hadron/contracts/api';
import type { MidpriceHistoryResponseDto } from './get-midprice-history.response.dto';

export class GetMidpriceHistoryQuery extends Query<MidpriceHistoryResponseDto> {
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
