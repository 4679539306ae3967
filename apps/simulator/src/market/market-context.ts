import type { HadronProgramVersion } from '@hadron/domain';
import type { KeyBook } from '../ledger/keys';
import type { Ledger } from '../ledger/ledger';
import type { Rng } from '../ledger/prng';
import { HADRON_PROGRAM_V1, HADRON_PROGRAM_V2 } from '../spl/well-known';
import type { TokenTemplate } from './catalog';
import type { GroundTruth, PoolFact, TokenFact } from './ground-truth';
import type { MarketOptions } from './market-options';
import type { PoolRuntime } from './pool-runtime';

/**
 * The state of one simulated market while it is generated, shared by the functions of each
 * concern (genesis and accounts, scenario, price path, order flow). SimulatedMarket owns it.
 */
export interface MarketContext {
  readonly options: MarketOptions;
  readonly ledger: Ledger;
  readonly keys: KeyBook;
  /** The market's draws, in one fixed order: every concern draws from it as its turn comes. */
  readonly rng: Rng;
  /** Draws of token-metadata events (renames), apart from the market's: they shift none of its choices. */
  readonly tokenEventRng: Rng;
  readonly routerProgram: string;
  /** A made-up program that CPIs some oracle updates. */
  readonly keeperProgram: string;
  /** Owner of the router's platform-fee token accounts. */
  readonly routerFeeOwner: string;
  /**
   * A made-up program implementing the token-metadata interface: it owns the account a
   * Token-2022 MetadataPointer names when the metadata is not in the mint (kind 'pointer').
   */
  readonly tokenMetadataProgram: string;
  /** Pools that exist on chain (created so far). */
  readonly pools: PoolRuntime[];
  /** Every pool, including those created later (by index). */
  readonly planned: PoolRuntime[];
  readonly traders: Trader[];
  readonly tokens: Map<string, TokenFact>;
  /** How each token was made (by mint): its template and the authority that may update its metadata. */
  readonly tokenOrigins: Map<string, { template: TokenTemplate; updateAuthority: string }>;
  /** Address lookup tables by address: the addresses each holds. */
  readonly lookupTables: Map<string, string[]>;
  /** Events placed at a slot (lifecycle, fee splits, renames, late pools), run when it is produced. */
  readonly schedule: ScheduledEvent[];
  readonly historyEndSlot: number;
  readonly truth: MarketTruth;
}

/** The ground truth as it is recorded; GroundTruth adds the head, the history end and the tokens. */
export type MarketTruth = Omit<GroundTruth, 'head_slot' | 'history_end_slot' | 'tokens' | 'pools'> & { pools: PoolFact[] };

export interface Trader {
  key: string;
}

export interface ScheduledEvent {
  slot: number;
  run: (slot: number) => void;
}

export const SOL = 1_000_000_000;
export const I64_MAX = (1n << 63n) - 1n;
export const Q32 = 2 ** 32;

export const PROGRAMS: Record<HadronProgramVersion, string> = { v1: HADRON_PROGRAM_V1, v2: HADRON_PROGRAM_V2 };

/**
 * How often the rarer transaction shapes appear — low, deterministic, and each one true to what
 * the program (DESIGN §2 [C]) or a real client could send. The market-generator spec checks that
 * every shape is present in a small market.
 */
export const SHAPE_RATES = {
  /** A sell whose is_x byte is not 1 (any non-zero sells X [C]). */
  nonCanonicalIsX: 0.08,
  /** Oracle-update data with trailing bytes (ignored by the program [C]). */
  oracleTrailingBytes: 0.04,
  /** An oracle update CPI'd by a keeper program instead of sent top level. */
  oracleViaCpi: 0.04,
  /** Per swap drawn on an active pool: instead, an oracle update and a swap in one transaction. */
  swapWithOracleUpdate: 0.06,
  /** A routed swap whose router takes a platform fee with TransferChecked after it. */
  routerPlatformFee: 0.12,
  /** A single routed swap served without stackHeight (a transaction older than the field). */
  cpiWithoutStackHeight: 0.08,
} as const;

export const signer = (pubkey: string) => ({ pubkey, isSigner: true, isWritable: true });
export const writable = (pubkey: string) => ({ pubkey, isSigner: false, isWritable: true });
export const readonly = (pubkey: string) => ({ pubkey, isSigner: false, isWritable: false });

export function spreadFactor(bps: number): bigint {
  return (BigInt(10_000 - bps) << 32n) / 10_000n;
}

export function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
