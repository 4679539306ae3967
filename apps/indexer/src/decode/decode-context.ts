import type { HadronProgramVersion } from '@hadron/domain';

/** What the decoder knows about a pool (from its config account and PDAs). */
export interface KnownPool {
  programId: string;
  version: HadronProgramVersion;
  mintX: string;
  mintY: string;
  vaultX: string;
  vaultY: string;
  oracle: string;
}

export interface DecodeContext {
  /** Config address → pool. */
  readonly pools: ReadonlyMap<string, KnownPool>;
  /** Oracle address → config address: oracle updates do not pass the config. */
  readonly poolByOracle: ReadonlyMap<string, string>;
  /** Vault address (x or y) → config address: token balances name the account, `owner` is optional. */
  readonly poolByVault: ReadonlyMap<string, string>;
}

export function decodeContextOf(pools: ReadonlyMap<string, KnownPool>): DecodeContext {
  const poolByOracle = new Map<string, string>();
  const poolByVault = new Map<string, string>();
  for (const [config, pool] of pools) {
    poolByOracle.set(pool.oracle, config);
    poolByVault.set(pool.vaultX, config);
    poolByVault.set(pool.vaultY, config);
  }
  return { pools, poolByOracle, poolByVault };
}
