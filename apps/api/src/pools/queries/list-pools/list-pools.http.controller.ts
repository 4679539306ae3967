import { Controller, Get, Header, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DataFreshness } from '../../../freshness/data-freshness';
import { DATA_RESPONSE_HEADERS, NOT_MODIFIED_RESPONSE } from '../../../freshness/as-of.dto';
import { ApiErrorDto, UNAVAILABLE_RESPONSE } from '../../../http/api-error.dto';
import { JSON_CONTENT_TYPE, type JsonText } from '../../../http/json';
import { renderPoolListPage } from '../../pool-list/pool-list';
import { ListPoolsQuery } from './list-pools.query';
import { ListPoolsRequestDto } from './list-pools.request.dto';
import { PoolListResponseDto } from './list-pools.response.dto';

@ApiTags('pools')
@Controller('pools')
export class ListPoolsHttpController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly freshness: DataFreshness,
  ) {}

  @Get()
  @Header('Content-Type', JSON_CONTENT_TYPE)
  @ApiOperation({
    operationId: 'listPools',
    summary: 'List pools',
    description:
      'Paginated, filterable, sortable list of the pools of a cluster. All filters combine with AND; `total` and `pages` describe the filtered set. Served from an in-memory snapshot refreshed when projections advance (about every second).',
  })
  @ApiOkResponse({ type: PoolListResponseDto, headers: DATA_RESPONSE_HEADERS })
  @ApiResponse(NOT_MODIFIED_RESPONSE)
  @ApiBadRequestResponse({
    type: ApiErrorDto,
    description: 'Invalid `cluster`, `page`, `page_size` or `sort_by`, a repeated parameter, or an unknown parameter',
  })
  @ApiServiceUnavailableResponse(UNAVAILABLE_RESPONSE)
  async list(@Query() request: ListPoolsRequestDto): Promise<JsonText> {
    const asOf = this.freshness.asOf(request.cluster); // before the data: the list is at least this current
    const page = await this.queryBus.execute(new ListPoolsQuery(request.toFilter()));
    return renderPoolListPage(page, asOf, request.raw_amounts) as JsonText;
  }
}
