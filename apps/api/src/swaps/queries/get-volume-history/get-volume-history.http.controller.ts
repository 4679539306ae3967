import { Controller, Inject, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { bucketCount, DAY } from '@hadron/domain';
import type { FastifyReply } from 'fastify';
import { ApiTags } from '@nestjs/swagger';
import { DataFreshness } from '../../../freshness/data-freshness';
import { cacheHistoryWindow } from '../../../http/client-http';
import { HeavyQueryGate, unitsFor } from '../../../http/heavy-query-gate';
import { type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
import { DataEndpoint } from '../../../http/data-endpoint.decorator';
import { CLOCK, nowSeconds, type Clock } from '../../../http/tokens';
import { GetVolumeHistoryRequestDto } from './get-volume-history.request.dto';
import { VolumeHistoryResponseDto } from './get-volume-history.response.dto';

@ApiTags('pools')
@Controller('pools')
export class GetVolumeHistoryHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly gate: HeavyQueryGate,
    private readonly freshness: DataFreshness,
  ) {}

  @DataEndpoint({
    path: ':address/volume/history',
    operationId: 'getVolumeHistory',
    summary: 'Volume history',
    description:
      'Daily volume and fees of one pool: one bucket per UTC day touched by the range, ascending, zero-filled, whole-day totals in quote-token units.',
    ok: VolumeHistoryResponseDto,
    badRequest:
      '`Only 24h timeframe is supported for volume history in v1`; `start_time and end_time must be valid unix timestamps in seconds`; an address that is not base58 of 32 bytes; start_time after end_time; more than 36600 days; invalid `cluster`',
  })
  async history(
    @Param('address', PoolAddressPipe) address: string,
    @Query() request: GetVolumeHistoryRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonText> {
    const query = request.toQuery(address, nowSeconds(this.clock));
    cacheHistoryWindow(reply, this.freshness, query.cluster, query.endTime);
    // One item per day of the range (zero-filled).
    return this.gate.run(() => this.queryBus.execute(query), reply.request.raw.socket, unitsFor(bucketCount(DAY, query.startTime, query.endTime)));
  }
}
