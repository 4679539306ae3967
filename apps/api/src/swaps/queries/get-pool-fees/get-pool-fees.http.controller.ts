import { Controller, Get, Header, Inject, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
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
import { ApiErrorDto, NotFoundErrorDto, UNAVAILABLE_RESPONSE } from '../../../http/api-error.dto';
import { ADDRESS_PARAM_DOC } from '../../../http/common-params';
import { HeavyQueryGate } from '../../../http/heavy-query-gate';
import { JSON_CONTENT_TYPE, jsonText, type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
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

  @Get(':address/fees')
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'getPoolFees',
    summary: 'Pool fees',
    description:
      'Spread, protocol fee and per-recipient split of one pool over a lookback window ending at the request time. Exact for every window: whole hours and whole minutes from rollups, only the partial minutes at both edges from raw swaps (capped by FEES_SWAP_CAP, see `truncated`).',
  })
  @ApiParam(ADDRESS_PARAM_DOC)
  @ApiOkResponse({ type: PoolFeesReportDto, headers: DATA_RESPONSE_HEADERS })
  @ApiResponse(NOT_MODIFIED_RESPONSE)
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'An address that is not base58 of 32 bytes; invalid `interval` or `cluster`; a repeated or unknown parameter',
  })
  @ApiNotFoundResponse({ type: NotFoundErrorDto, description: 'Not a pool of this cluster' })
  @ApiServiceUnavailableResponse(UNAVAILABLE_RESPONSE)
  async fees(@Param('address', PoolAddressPipe) address: string, @Query() request: GetPoolFeesRequestDto): Promise<JsonText> {
    const query = new GetPoolFeesQuery(request.cluster, address, request.interval, nowSeconds(this.clock), request.raw_amounts);
    return this.gate.run(async () => jsonText(await this.queryBus.execute(query)));
  }
}
