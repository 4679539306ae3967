import { Controller, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { DataFreshness } from '../../../freshness/data-freshness';
import { type JsonText } from '../../../http/json';
import { DataEndpoint } from '../../../http/data-endpoint.decorator';
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

  @DataEndpoint({
    operationId: 'listPools',
    summary: 'List pools',
    description:
      'Paginated, filterable, sortable list of the pools of a cluster. All filters combine with AND; `total` and `pages` describe the filtered set. Served from an in-memory snapshot refreshed when projections advance (about every second).',
    ok: PoolListResponseDto,
    badRequest: 'Invalid `cluster`, `page`, `page_size`, `sort_by` or `raw_amounts`',
  })
  async list(@Query() request: ListPoolsRequestDto): Promise<JsonText> {
    const asOf = this.freshness.asOf(request.cluster); // before the data: the list is at least this current
    const page = await this.queryBus.execute(new ListPoolsQuery(request.toFilter()));
    return renderPoolListPage(page, asOf, request.raw_amounts) as JsonText;
  }
}
