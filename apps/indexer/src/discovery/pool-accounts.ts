import type { PoolSnapshot, TokenMetadata } from '@hadron/contracts';
import {
  decodeConfigAccount,
  decodeFeeConfigAccount,
  decodeOracleAccount,
  derivePoolAddresses,
  globalFeeConfigAddress,
  HadronDecodeError,
  publishedPoolState,
  programVersionOf,
  readFeeSplit,
  type HadronProgramVersion,
  type PoolConfigAccount,
  type SplitWeight,
} from '@hadron/domain';

/**
 * A pool's accounts as plain data: what never changes (PoolStatic, from the config's seed and
 * mints) and what an account read at one slot says (AccountState). Pure.
 */

export interface PoolStatic {
  config: string;
  programId: string;
  version: HadronProgramVersion;
  seed: string;
  mintX: string;
  mintY: string;
  tokenProgramX: string;
  tokenProgramY: string;
  vaultX: string;
  vaultY: string;
  oracle: string;
  poolFeeConfig: string;
  globalFeeConfig: string;
}

/** What the pool's config, oracle and fee config accounts said when read (one slot). */
export interface AccountState {
  state: number;
  authority: string;
  oracleMode: number;
  spreadConfigInitialized: boolean;
  hasPoolFee: boolean;
  /** The fee config swaps use: the pool's own when has_pool_fee, else the program's global one. */
  feeConfig: string;
  /**
   * Null when the fee config account does not exist (or cannot be decoded). `split` is [] (the
   * default recipient, DESIGN §2) when the tail does not read as a plausible split under the
   * assumed layout; `splitUnreadable` then says why (a recorded problem, never a poisoned swap).
   */
  fee: { feePpm: number; feeRecipient: string; split: SplitWeight[]; splitUnreadable?: string } | null;
  /** Null when the oracle account does not exist (or cannot be decoded). */
  oracle: { quotingAuthority: string; sequence: string; midpriceQ32: string; spreadFactorQ32: string; lastUpdateSlot?: string } | null;
}

export interface PoolIdentity {
  static: PoolStatic;
  config: PoolConfigAccount;
}

/** The pool a config account describes, or null when it is not a Hadron config at its own PDA. */
export function poolFromConfigAccount(programId: string, address: string, data: Uint8Array): PoolIdentity | null {
  const version = programVersionOf(programId);
  if (!version) return null;
  let config: PoolConfigAccount;
  try {
    config = decodeConfigAccount(data);
  } catch (e) {
    if (e instanceof HadronDecodeError) return null;
    throw e;
  }
  const pdas = derivePoolAddresses(programId, BigInt(config.seed), config.mint_x, config.mint_y, config.token_program_x, config.token_program_y);
  if (pdas.config.address !== address) return null; // not a pool config (some other account of the same size)
  return {
    config,
    static: {
      config: address,
      programId,
      version,
      seed: config.seed,
      mintX: config.mint_x,
      mintY: config.mint_y,
      tokenProgramX: config.token_program_x,
      tokenProgramY: config.token_program_y,
      vaultX: pdas.vault_x.address,
      vaultY: pdas.vault_y.address,
      oracle: pdas.midprice_oracle.address,
      poolFeeConfig: pdas.pool_fee_config.address,
      globalFeeConfig: globalFeeConfigAddressCached(programId),
    },
  };
}

const globalFeeConfigs = new Map<string, string>();
function globalFeeConfigAddressCached(programId: string): string {
  let address = globalFeeConfigs.get(programId);
  if (!address) globalFeeConfigs.set(programId, (address = globalFeeConfigAddress(programId).address));
  return address;
}

/** The accounts a snapshot of this pool reads: config, oracle, both candidate fee configs. */
export function snapshotAddresses(p: PoolStatic): string[] {
  return [p.config, p.oracle, p.poolFeeConfig, p.globalFeeConfig];
}

/** Reads a pool's AccountState from the raw account bytes (null config = the pool is gone). */
export function accountStateOf(p: PoolStatic, data: (address: string) => Uint8Array | null): AccountState | null {
  const configData = data(p.config);
  if (!configData) return null;
  let config: PoolConfigAccount;
  try {
    config = decodeConfigAccount(configData);
  } catch (e) {
    if (e instanceof HadronDecodeError) return null;
    throw e;
  }
  const feeConfig = config.has_pool_fee !== 0 ? p.poolFeeConfig : p.globalFeeConfig;
  return {
    state: config.state,
    authority: config.authority,
    oracleMode: config.oracle_mode,
    spreadConfigInitialized: config.spread_config_initialized !== 0,
    hasPoolFee: config.has_pool_fee !== 0,
    feeConfig,
    fee: feeOf(data(feeConfig)),
    oracle: decodeOrNull(data(p.oracle), (d) => {
      const o = decodeOracleAccount(d);
      return {
        quotingAuthority: o.quoting_authority,
        sequence: o.sequence,
        midpriceQ32: o.midprice_q32,
        spreadFactorQ32: o.spread_factor_q32,
        lastUpdateSlot: o.last_update_slot,
      };
    }),
  };
}

/** The fee config's confirmed prefix, and its split decoded on its own: an unreadable split never drops the fee rate and recipient. */
function feeOf(data: Uint8Array | null): AccountState['fee'] {
  const fee = decodeOrNull(data, decodeFeeConfigAccount);
  if (!fee || !data) return null;
  const read = readFeeSplit(data);
  return read.split !== null
    ? { feePpm: fee.fee_ppm, feeRecipient: fee.fee_recipient, split: read.split }
    : { feePpm: fee.fee_ppm, feeRecipient: fee.fee_recipient, split: [], splitUnreadable: read.problem };
}

function decodeOrNull<T>(data: Uint8Array | null, decode: (d: Uint8Array) => T): T | null {
  if (!data) return null;
  try {
    return decode(data);
  } catch (e) {
    if (e instanceof HadronDecodeError) return null;
    throw e;
  }
}

/** The PoolDiscovered / PoolConfigChanged payload. */
export function poolSnapshotOf(
  p: PoolStatic,
  tokens: { x: TokenMetadata; y: TokenMetadata },
  a: AccountState,
  oracle: { midpriceQ32: string | null; spreadFactorQ32: string | null },
): PoolSnapshot {
  return {
    programId: p.programId,
    programVersion: p.version === 'v1' ? 1 : 2,
    seed: p.seed,
    authority: a.authority,
    quotingAuthority: a.oracle?.quotingAuthority ?? null,
    oracle: p.oracle,
    tokenX: tokenOf(tokens.x),
    tokenY: tokenOf(tokens.y),
    vaultX: p.vaultX,
    vaultY: p.vaultY,
    poolState: publishedPoolState(a.state),
    poolStateRaw: a.state,
    oracleMode: a.oracleMode,
    spreadConfigInitialized: a.spreadConfigInitialized,
    hasPoolFee: a.hasPoolFee,
    feeConfig: a.feeConfig,
    feePpm: a.fee ? Math.min(a.fee.feePpm, 1_000_000) : null,
    feeRecipient: a.fee?.feeRecipient ?? null,
    midpriceQ32: oracle.midpriceQ32,
    spreadFactorQ32: oracle.spreadFactorQ32,
  };
}

/** Explicit key order: records come back from JSONB with their keys reordered. */
function tokenOf(t: TokenMetadata): TokenMetadata {
  return { mint: t.mint, symbol: t.symbol, name: t.name, decimals: t.decimals, icon: t.icon };
}

/** The parts of AccountState whose change is a PoolConfigChanged (everything but the oracle's price and the split). */
export function configFingerprint(a: AccountState): string {
  return JSON.stringify([
    a.state,
    a.authority,
    a.oracleMode,
    a.spreadConfigInitialized,
    a.hasPoolFee,
    a.feeConfig,
    a.fee?.feePpm ?? null,
    a.fee?.feeRecipient ?? null,
    a.oracle?.quotingAuthority ?? null,
  ]);
}

/**
 * The parts whose change is a FeeSplitChanged. The split as [recipient, ppm] pairs: a state read
 * back from Postgres (JSONB) has its object keys in another order, and is still the same split.
 */
export function splitFingerprint(a: AccountState): string {
  return JSON.stringify([a.feeConfig, a.fee?.feePpm ?? null, a.fee ? a.fee.split.map((w) => [w.recipient, w.ppm]) : null]);
}
