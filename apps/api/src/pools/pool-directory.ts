import { Injectable } from '@nestjs/common';
import type { Cluster } from '@hadron/contracts/api';
import { ReadDb } from '../database/read-db';
import { PoolListSnapshot } from './pool-list/pool-list.snapshot';

export interface PoolMeta {
  mintX: string;
  mintY: string;
  decimalsX: number;
  decimalsY: number;
}

const LOOKUP_SQL = `SELECT token_x_mint, token_y_mint, token_x_decimals, token_y_decimals
  FROM read.pools WHERE cluster = $1 AND address = $2`;

/**
 * Is `address` a pool of `cluster`, and what are its mints and decimals? From the in-memory
 * snapshot; a miss asks the database (a pool discovered since the last snapshot is not a 404).
 */
@Injectable()
export class PoolDirectory {
  constructor(
    private readonly snapshot: PoolListSnapshot,
    private readonly db: ReadDb,
  ) {}

  async find(cluster: Cluster, address: string): Promise<PoolMeta | null> {
    const e = this.snapshot.find(cluster, address);
    if (e) return { mintX: e.mintX, mintY: e.mintY, decimalsX: e.decimalsX, decimalsY: e.decimalsY };
    const rows = await this.db.query<{ token_x_mint: string; token_y_mint: string; token_x_decimals: number; token_y_decimals: number }>(
      'api-pool-meta',
      LOOKUP_SQL,
      [cluster, address],
    );
    const r = rows[0];
    return r ? { mintX: r.token_x_mint, mintY: r.token_y_mint, decimalsX: r.token_x_decimals, decimalsY: r.token_y_decimals } : null;
  }
}
