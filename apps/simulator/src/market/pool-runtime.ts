import type { HadronProgramVersion, PoolAddresses, PoolConfigAccount } from '@hadron/domain';
import type { SplitWeight } from '@hadron/domain';
import type { PoolFact } from './ground-truth';
import type { PoolTemplate } from './catalog';

/** The mutable state of one simulated pool while its history is generated. */
export interface PoolRuntime {
  index: number;
  template: PoolTemplate;
  fact: PoolFact;
  programId: string;
  version: HadronProgramVersion;
  seed: bigint;
  addresses: PoolAddresses;
  config: PoolConfigAccount;
  authority: string;
  quotingAuthority: string;
  mintX: string;
  mintY: string;
  decimalsX: number;
  decimalsY: number;
  tokenProgramX: string;
  tokenProgramY: string;
  authorityAtaX: string;
  authorityAtaY: string;
  /** Vault balances at creation (genesis pools) or of the first deposit (pools created later). */
  initialVaults: { x: bigint; y: bigint };
  oracle: { sequence: bigint; midpriceQ32: bigint; spreadFactorQ32: bigint; lastUpdateSlot: bigint };
  fee: {
    address: string;
    isPoolFee: boolean;
    version: HadronProgramVersion;
    bump: number;
    admin: string;
    ppm: number;
    recipient: string;
    /** Non-empty only for per-pool v2 fee configs. */
    split: SplitWeight[];
    /** Fee recipient ATAs by mint. */
    atas: Record<string, string>;
  };
  lookupTable: string;
  /** Events per second. */
  midpriceRate: number;
  swapRate: number;
  liquidityRate: number;
  /** Typical swap size in quote human units. */
  swapValue: { min: number; max: number };
}

/** Quote atoms per base atom as a double (for sizing trades only, never for amounts that are recorded). */
export function midpriceRaw(pool: PoolRuntime): number {
  return Number(pool.oracle.midpriceQ32) / 2 ** 32;
}

const Q64 = 1n << 64n;

/**
 * What a swap returns (the simulator's pricing model: DESIGN §2 says the price is computed on the
 * net input from the oracle midprice and spread; the curve is not modelled). Selling X gets
 * net × mid × spread; buying X gets net × spread / mid.
 */
export function quoteSwap(pool: PoolRuntime, isX: boolean, amountIn: bigint, feePpm: number): { fee: bigint; net: bigint; out: bigint } {
  const fee = (amountIn * BigInt(feePpm)) / 1_000_000n;
  const net = amountIn - fee;
  const { midpriceQ32: mid, spreadFactorQ32: spread } = pool.oracle;
  const out = isX ? (net * mid * spread) / Q64 : (net * spread) / mid;
  return { fee, net, out };
}
