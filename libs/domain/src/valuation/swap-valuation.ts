import { quoteAtomsToQ32 } from '../math/q32';

export type SwapSide = 'buy' | 'sell';

/** The amounts of one swap, exact atoms. `buy` pays Y (quote) for X; `sell` pays X for Y. */
export interface SwapAmounts {
  side: SwapSide;
  /** Gross input taken from the user. */
  amountIn: bigint;
  /** amountIn − fee: what reached the input vault. */
  amountInToVault: bigint;
  amountOut: bigint;
  /** Protocol fee, in the input mint. */
  feeRaw: bigint;
  /** Midprice in effect (Q32 quote atoms per base atom); null before the pool's first oracle update. */
  midpriceQ32: bigint | null;
}

/** Everything in Q32 quote atoms (quote atoms × 2^32), exact. */
export interface SwapValue {
  /** Value of the gross input (DESIGN §4 volume_usd). */
  volumeQ32: bigint;
  /** Mid-value of the net input − mid-value of the output; negative on price improvement. */
  spreadQ32: bigint;
  /** The fee valued like the input. */
  protocolFeeQ32: bigint;
  /** spread + protocol fee: the pool list's fees.24h and volume history's `fees`. */
  feesQ32: bigint;
  /** Fee atoms by mint: sells pay in X, buys in Y. */
  feeXRaw: bigint;
  feeYRaw: bigint;
  /**
   * False when the swap had no midprice (no oracle update yet). Then every term that needs a
   * price counts 0: a sell contributes no volume, fee value or spread; a buy contributes its
   * volume and fee value (quote atoms need no price) and spread 0 (the output cannot be valued).
   * Fee atoms and the swap count are still exact.
   */
  priced: boolean;
}

/**
 * DESIGN §4 valuation of one swap.
 * - buy (input Y): volume = amountIn << 32; fee = feeRaw << 32; spread = (toVault << 32) − amountOut × mid
 * - sell (input X): volume = amountIn × mid; fee = feeRaw × mid; spread = toVault × mid − (amountOut << 32)
 */
export function valueSwap(s: SwapAmounts): SwapValue {
  const mid = s.midpriceQ32;
  let volumeQ32: bigint;
  let protocolFeeQ32: bigint;
  let spreadQ32: bigint;
  if (s.side === 'buy') {
    volumeQ32 = quoteAtomsToQ32(s.amountIn);
    protocolFeeQ32 = quoteAtomsToQ32(s.feeRaw);
    spreadQ32 = mid === null ? 0n : quoteAtomsToQ32(s.amountInToVault) - s.amountOut * mid;
  } else if (mid === null) {
    volumeQ32 = 0n;
    protocolFeeQ32 = 0n;
    spreadQ32 = 0n;
  } else {
    volumeQ32 = s.amountIn * mid;
    protocolFeeQ32 = s.feeRaw * mid;
    spreadQ32 = s.amountInToVault * mid - quoteAtomsToQ32(s.amountOut);
  }
  return {
    volumeQ32,
    spreadQ32,
    protocolFeeQ32,
    feesQ32: spreadQ32 + protocolFeeQ32,
    feeXRaw: s.side === 'sell' ? s.feeRaw : 0n,
    feeYRaw: s.side === 'buy' ? s.feeRaw : 0n,
    priced: mid !== null,
  };
}
