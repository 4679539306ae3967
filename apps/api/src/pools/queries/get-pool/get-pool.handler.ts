import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { ReadDb } from '../../../database/read-db';
import { toEntry, type PoolEntry, type PoolRow } from '../../pool-list/pool-list';
import { POOL_COLUMNS, PoolListSnapshot } from '../../pool-list/pool-list.snapshot';
import { GetPoolQuery } from './get-pool.query';

const ONE_POOL_SQL = `SELECT ${POOL_COLUMNS} FROM read.pools WHERE cluster = $1 AND address = $2`;

/**
 * From the in-memory pool list, the same entry (and JSON) the list serves; a pool discovered since
 * the last snapshot is read from the database (not a 404 for up to a second).
 */
@QueryHandler(GetPoolQuery)
export class GetPoolHandler implements IQueryHandler<GetPoolQuery> {
  constructor(
    private readonly snapshot: PoolListSnapshot,
    private readonly db: ReadDb,
  ) {}

  async execute(q: GetPoolQuery): Promise<PoolEntry | null> {
    const cached = this.snapshot.find(q.cluster, q.address);
    if (cached) return cached;
    const [row] = await this.db.query<PoolRow>('api-one-pool', ONE_POOL_SQL, [q.cluster, q.address]);
    return row ? toEntry(row) : null;
  }
}
