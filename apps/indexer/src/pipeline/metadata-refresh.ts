import type { TokenMetadata } from '@hadron/contracts';
import { sameTokenMetadata } from '../discovery/token-metadata';
import type { PoolRecord } from './pool-state';

/**
 * Token renames: what a fresh read of the pooled mints' metadata says, against what each pool's
 * events last carried. Pure. Decimals are the mint's and never change; a read that disagrees on
 * them (it cannot on a real chain) changes nothing.
 */

export interface Rename {
  /** The pool with its new tokens. */
  pool: PoolRecord;
  /** Its tokens that read differently (one or both). */
  renamed: TokenMetadata[];
}

export function tokenRenames(pools: Iterable<PoolRecord>, read: ReadonlyMap<string, TokenMetadata>): Rename[] {
  const out: Rename[] = [];
  for (const pool of pools) {
    const renamed = (current: TokenMetadata): TokenMetadata | null => {
      const now = read.get(current.mint);
      if (!now || now.decimals !== current.decimals || sameTokenMetadata(now, current)) return null;
      return { mint: current.mint, symbol: now.symbol, name: now.name, decimals: current.decimals, icon: now.icon };
    };
    const x = renamed(pool.tokens.x);
    const y = renamed(pool.tokens.y);
    if (!x && !y) continue;
    out.push({ pool: { ...pool, tokens: { x: x ?? pool.tokens.x, y: y ?? pool.tokens.y } }, renamed: [x, y].filter((t): t is TokenMetadata => t !== null) });
  }
  return out;
}
