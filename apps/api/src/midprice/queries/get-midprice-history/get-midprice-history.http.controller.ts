import { Controller, Get, Header, Inject, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiParam,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { DATA_RESPONSE_HEADERS, NOT_MODIFIED_RESPONSE } from '../../../freshness/as-of.dto';
import { DataFreshness } from '../../../freshness/data-freshness';
import { ApiErrorDto, NotFoundErrorDto, UNAVAILABLE_RESPONSE } from '../../../http/api-error.dto';
import { cacheHistoryWindow } from '../../../http/client-http';
import { ADDRESS_PARAM_DOC } from '../../../http/common-params';
import { HeavyQueryGate } from '../../../http/heavy-query-gate';
import { JSON_CONTENT_TYPE, jsonTextInSlices, type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
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

  @Get(':address/midprice/history')
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'getMidpriceHistory',
    summary: 'Midprice history',
    description:
      'Sampled: one entry per epoch-aligned bucket holding data, ascending; timestamp = bucket start; midprice, spread factor, slot and signature of the last update in the bucket. Raw: every update in [start_time, end_time] strictly before `cursor`, newest first, paginated by whole seconds so that following `next_cursor` never skips or repeats a record.',
  })
  @ApiParam(ADDRESS_PARAM_DOC)
  @ApiOkResponse({ type: MidpriceHistoryResponseDto, headers: DATA_RESPONSE_HEADERS })
  @ApiResponse(NOT_MODIFIED_RESPONSE)
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description:
      '`Invalid timeframe`; `start_time and end_time must be valid unix timestamps in seconds`; `cursor must be a valid unix timestamp in seconds`; an address that is not base58 of 32 bytes; start_time after end_time; too many buckets; invalid `limit` or `cluster`; a repeated or unknown parameter',
  })
  @ApiNotFoundResponse({ type: NotFoundErrorDto, description: 'Not a pool of this cluster' })
  @ApiServiceUnavailableResponse(UNAVAILABLE_RESPONSE)
  async history(
    @Param('address', PoolAddressPipe) address: string,
    @Query() request: GetMidpriceHistoryRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonText> {
    const query = request.toQuery(address, nowSeconds(this.clock));
    cacheHistoryWindow(reply, this.freshness, query.cluster, query.cursor === undefined ? query.endTime : Math.min(query.endTime, query.cursor - 1));
    return this.gate.run(async () => jsonTextInSlices(await this.queryBus.execute(query)));
  }
}
