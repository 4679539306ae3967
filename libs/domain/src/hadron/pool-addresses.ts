import { associatedTokenAddress, findProgramAddress, u64LeSeed, utf8Seed, type DerivedAddress, type Seed } from './pda';

/**
 * Hadron's program-derived accounts (DESIGN §2, [C] unless noted). Pool accounts are keyed by
 * [prefix, seed u64 LE, mint_x, mint_y]; fee and spread configs by the config address; vaults are
 * the config PDA's associated token accounts.
 */

export interface PoolAddresses {
  config: DerivedAddress;
  midprice_oracle: DerivedAddress;
  curve_meta: DerivedAddress;
  /** [A] on v2, which stores the prefabs address at config+430; whether it is this PDA is unverified. */
  curve_prefabs: DerivedAddress;
  curve_updates: DerivedAddress;
  /** Used instead of the global fee config only when the config's has_pool_fee = 1. */
  pool_fee_config: DerivedAddress;
  spread_config: DerivedAddress;
  vault_x: DerivedAddress;
  vault_y: DerivedAddress;
}

type PoolAccount = 'config' | 'midprice' | 'curve-meta' | 'curve-prefabs' | 'curve-updates';

export function poolAccountAddress(account: PoolAccount, programId: string, seed: bigint, mintX: string, mintY: string): DerivedAddress {
  return findProgramAddress([utf8Seed(`hadron-${account}`), u64LeSeed(seed), { pubkey: mintX }, { pubkey: mintY }], programId);
}

/** The program-wide fee config, `["fee_config"]`. */
export function globalFeeConfigAddress(programId: string): DerivedAddress {
  return findProgramAddress([utf8Seed('fee_config')], programId);
}

/** A pool's own fee config, `["fee_config", config]`. */
export function poolFeeConfigAddress(programId: string, config: string): DerivedAddress {
  return configKeyed('fee_config', programId, config);
}

export function spreadConfigAddress(programId: string, config: string): DerivedAddress {
  return configKeyed('spread_config', programId, config);
}

export function derivePoolAddresses(
  programId: string,
  seed: bigint,
  mintX: string,
  mintY: string,
  tokenProgramX: string,
  tokenProgramY: string,
): PoolAddresses {
  const config = poolAccountAddress('config', programId, seed, mintX, mintY);
  return {
    config,
    midprice_oracle: poolAccountAddress('midprice', programId, seed, mintX, mintY),
    curve_meta: poolAccountAddress('curve-meta', programId, seed, mintX, mintY),
    curve_prefabs: poolAccountAddress('curve-prefabs', programId, seed, mintX, mintY),
    curve_updates: poolAccountAddress('curve-updates', programId, seed, mintX, mintY),
    pool_fee_config: poolFeeConfigAddress(programId, config.address),
    spread_config: spreadConfigAddress(programId, config.address),
    vault_x: associatedTokenAddress(config.address, mintX, tokenProgramX),
    vault_y: associatedTokenAddress(config.address, mintY, tokenProgramY),
  };
}

function configKeyed(prefix: string, programId: string, config: string): DerivedAddress {
  const seeds: Seed[] = [utf8Seed(prefix), { pubkey: config }];
  return findProgramAddress(seeds, programId);
}
