import { Query } from '@nestjs/cqrs';
import type { Cluster } from '@hadron/contracts/api';
import type { PoolEntry } from '../../pool-list/pool-list';

/** One pool, as an item of the pool list; null when `address` is not a pool of `cluster`. */
export class GetPoolQuery extends Query<PoolEntry | null> {
  constructor(
    readonly cluster: Cluster,
    readonly address: string,
  ) {
    super();
  }
}
