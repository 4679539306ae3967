import { Controller, Inject, Param, Query, Req } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { HeavyQueryGate } from '../../../http/heavy-query-gate';
import { jsonTextWithBigInts, type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
import { DataEndpoint } from '../../../http/data-endpoint.decorator';
import { CLOCK, nowSeconds, type Clock } from '../../../http/tokens';
import { GetPoolFeesQuery } from './get-pool-fees.query';
import { GetPoolFeesRequestDto } from './get-pool-fees.request.dto';
import { PoolFeesReportDto } from './get-pool-fees.response.dto';

@ApiTags('pools')
@Controller('pools')
export class GetPoolFeesHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly gate: HeavyQueryGate,
  ) {}

  @DataEndpoint({
    path: ':address/fees',
    operationId: 'getPoolFees',
    summary: 'Pool fees',
    description:
      'Spread, protocol fee and per-recipient split of one pool over a lookback window ending at the request time. Exact for every window, `1h` to `all`, at the same cost: the difference of two points of the pool’s running totals (no swap cap is reached; `truncated` is false).',
    ok: PoolFeesReportDto,
    badRequest: 'An address that is not base58 of 32 bytes; invalid `interval` or `cluster`',
  })
  async fees(@Param('address', PoolAddressPipe) address: string, @Query() request: GetPoolFeesRequestDto, @Req() http: FastifyRequest): Promise<JsonText> {
    const query = new GetPoolFeesQuery(request.cluster, address, request.interval, nowSeconds(this.clock), request.raw_amounts);
    // Raw amounts are bigints by default (exact JSON numbers): written without a failed JSON.stringify first.
    return this.gate.run(async () => jsonTextWithBigInts(await this.queryBus.execute(query)), http.raw.socket);
  }
}
