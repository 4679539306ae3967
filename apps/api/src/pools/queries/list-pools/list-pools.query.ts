import { Query } from '@nestjs/cqrs';
import type { PoolListFilter } from '@hadron/contracts/api';
import type { PoolListPage } from '../../pool-list/pool-list';

export class ListPoolsQuery extends Query<PoolListPage> {
  constructor(readonly filter: PoolListFilter) {
    super();
  }
}
