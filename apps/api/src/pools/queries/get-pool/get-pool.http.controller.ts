import { Controller, Param, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { entityTag } from '../../../http/client-http';
import type { RawAmountFormat } from '@hadron/contracts/api';
import { poolNotFound } from '../../../http/api-exception.filter';
import { type JsonText } from '../../../http/json';
import { PoolAddressPipe } from '../../../http/pool-address.pipe';
import { DataEndpoint } from '../../../http/data-endpoint.decorator';
import { renderPool, type PoolEntry } from '../../pool-list/pool-list';
import { PoolDto } from '../list-pools/list-pools.response.dto';
import { GetPoolQuery } from './get-pool.query';
import { GetPoolRequestDto } from './get-pool.request.dto';

/**
 * The ETag of each pool's two bodies, hashed once per entry rather than per request (an entry and
 * its JSON are immutable; a changed pool gets a new entry in the next snapshot). The HTTP layer
 * uses a tag already set instead of hashing the body (see registerClientHttp): the same tag.
 */
const tags = new WeakMap<PoolEntry, { number?: string; string?: string }>();

function tagOf(entry: PoolEntry, rawAmounts: RawAmountFormat, body: string): string {
  let t = tags.get(entry);
  if (t === undefined) tags.set(entry, (t = {}));
  return (t[rawAmounts] ??= entityTag(body));
}

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
  async get(
    @Param('address', PoolAddressPipe) address: string,
    @Query() request: GetPoolRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JsonText> {
    const entry = await this.queryBus.execute(new GetPoolQuery(request.cluster, address));
    if (!entry) throw poolNotFound();
    const body = renderPool(entry, request.raw_amounts);
    void reply.header('etag', tagOf(entry, request.raw_amounts, body));
    return body as JsonText;
  }
}
