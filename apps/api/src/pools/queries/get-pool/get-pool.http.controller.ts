import { Controller, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import { poolNotFound } from '../../../http/api-exception.filter';
import { type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
import { DataEndpoint } from '../../../http/data-endpoint.decorator';
import { renderPool } from '../../pool-list/pool-list';
import { PoolDto } from '../list-pools/list-pools.response.dto';
import { GetPoolQuery } from './get-pool.query';
import { GetPoolRequestDto } from './get-pool.request.dto';

@ApiTags('pools')
@Controller('pools')
export class GetPoolHttpController {
  constructor(private readonly queryBus: QueryBus) {}

  @DataEndpoint({
    path: ':address',
    operationId: 'getPool',
    summary: 'One pool',
    description: 'One pool, in the same shape as an item of `GET /pools` `data` (an addition to the spec). Freshness is in the response headers.',
    ok: PoolDto,
    badRequest: 'An address that is not base58 of 32 bytes; invalid `cluster` or `raw_amounts`',
  })
  async get(@Param('address', PoolAddressPipe) address: string, @Query() request: GetPoolRequestDto): Promise<JsonText> {
    const entry = await this.queryBus.execute(new GetPoolQuery(request.cluster, address));
    if (!entry) throw poolNotFound();
    return renderPool(entry, request.raw_amounts) as JsonText;
  }
}
