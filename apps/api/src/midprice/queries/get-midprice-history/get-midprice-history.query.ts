import { Query } from '@nestjs/cqrs';
import type { Cluster, MidpriceTimeframe } from '@hadron/contracts/api';
import type { JsonText } from '../../../http/json';

/** Answered with the response body (MidpriceHistoryResponseDto) already written as JSON. */
export class GetMidpriceHistoryQuery extends Query<JsonText> {
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
