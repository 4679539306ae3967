import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { listPools, type PoolListPage } from '../../pool-list/pool-list';
import { PoolListSnapshot } from '../../pool-list/pool-list.snapshot';
import { ListPoolsQuery } from './list-pools.query';

/** Served from the in-memory snapshot: no database round trip per request. */
@QueryHandler(ListPoolsQuery)
export class ListPoolsHandler implements IQueryHandler<ListPoolsQuery> {
  constructor(private readonly snapshot: PoolListSnapshot) {}

  async execute(query: ListPoolsQuery): Promise<PoolListPage> {
    return listPools(this.snapshot.current(), query.filter);
  }
}
