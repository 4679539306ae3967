import { Controller, Get, Header, Param, Query } from '@nestjs/common';
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
import { poolNotFound } from '../../../http/api-exception.filter';
import { ADDRESS_PARAM_DOC } from '../../../http/common-params';
import { JSON_CONTENT_TYPE, type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
import { renderPool } from '../../pool-list/pool-list';
import { PoolDto } from '../list-pools/list-pools.response.dto';
import { GetPoolQuery } from './get-pool.query';
import { GetPoolRequestDto } from './get-pool.request.dto';

@ApiTags('pools')
@Controller('pools')
export class GetPoolHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get(':address')
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'getPool',
    summary: 'One pool',
    description: 'One pool, in the same shape as an item of `GET /pools` `data` (an addition to the spec). Freshness is in the response headers.',
  })
  @ApiParam(ADDRESS_PARAM_DOC)
  @ApiOkResponse({ type: PoolDto, headers: DATA_RESPONSE_HEADERS })
  @ApiResponse(NOT_MODIFIED_RESPONSE)
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'An address that is not base58 of 32 bytes; invalid `cluster` or `raw_amounts`; a repeated or unknown parameter',
  })
  @ApiNotFoundResponse({ type: NotFoundErrorDto, description: 'Not a pool of this cluster' })
  @ApiServiceUnavailableResponse(UNAVAILABLE_RESPONSE)
  async get(@Param('address', PoolAddressPipe) address: string, @Query() request: GetPoolRequestDto): Promise<JsonText> {
    const entry = await this.queryBus.execute(new GetPoolQuery(request.cluster, address));
    if (!entry) throw poolNotFound();
    return renderPool(entry, request.raw_amounts) as JsonText;
  }
}
