import { Controller, Inject, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { MIDPRICE_MAX_BUCKETS, TIMEFRAME_SECONDS } from '@hadron/contracts/api';
import { bucketCount } from '@hadron/domain';
import type { FastifyReply } from 'fastify';
import { ApiTags } from '@nestjs/swagger';
import { DataFreshness } from '../../../freshness/data-freshness';
import { cacheHistoryWindow } from '../../../http/client-http';
import { HeavyQueryGate, unitsFor } from '../../../http/heavy-query-gate';
import { type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
import { DataEndpoint } from '../../../http/data-endpoint.decorator';
import { CLOCK, nowSeconds, type Clock } from '../../../http/tokens';
import { GetMidpriceHistoryRequestDto } from './get-midprice-history.request.dto';
import { MidpriceHistoryResponseDto } from './get-midprice-history.response.dto';

@ApiTags('pools')
@Controller('pools')
export class GetMidpriceHistoryHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly gate: HeavyQueryGate,
    private readonly freshness: DataFreshness,
  ) {}

  @DataEndpoint({
    path: ':address/midprice/history',
    operationId: 'getMidpriceHistory',
    summary: 'Midprice history',
    description:
      'Sampled: one entry per epoch-aligned bucket holding data, ascending; timestamp = bucket start; midprice, spread factor, slot and signature of the last update in the bucket. Raw: every update in [start_time, end_time] strictly before `cursor`, newest first, paginated by whole seconds so that following `next_cursor` never skips or repeats a record.',
    ok: MidpriceHistoryResponseDto,
    badRequest:
      '`Invalid timeframe`; `start_time and end_time must be valid unix timestamps in seconds`; `cursor must be a valid unix timestamp in seconds`; an address that is not base58 of 32 bytes; start_time after end_time; too many buckets; invalid `limit` or `cluster`',
  })
  async history(
    @Param('address', PoolAddressPipe) address: string,
    @Query() request: GetMidpriceHistoryRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonText> {
    const query = request.toQuery(address, nowSeconds(this.clock));
    cacheHistoryWindow(reply, this.freshness, query.cluster, query.cursor === undefined ? query.endTime : Math.min(query.endTime, query.cursor - 1));
    // A raw page's records, or the buckets a sampled range may hold (beyond the limit it is refused).
    const items =
      query.timeframe === 'raw' ? query.limit : Math.min(bucketCount(TIMEFRAME_SECONDS[query.timeframe], query.startTime, query.endTime), MIDPRICE_MAX_BUCKETS);
    return this.gate.run(() => this.queryBus.execute(query), reply.request.raw.socket, unitsFor(items));
  }
}
