/**
 * Exact money arithmetic in "Q32 quote atoms": quote-token atoms × 2^32. A midprice is Q32 quote
 * atoms per base atom, so `base_atoms × midprice_q32` and `quote_atoms << 32` share one unit and
 * sum exactly. Human quote units appear only at the JSON edge: value / 2^32 / 10^decimals_y.
 * (Price and spread decoding live in ../math/q32.ts.)
 */

import { humanPriceDecimal, q32ToDecimal, spreadBpsDecimal } from '../math/q32';

export const Q32_SHIFT = 32n;
export const Q32_ONE = 1n << Q32_SHIFT;

/** Quote atoms → Q32 quote atoms. */
export function quoteAtomsToQ32(atoms: bigint): bigint {
  return atoms << Q32_SHIFT;
}

/**
 * `numerator / (2^pow2 × 10^pow10)` as an exact decimal string. Exact because
 * 1/2^k = 5^k/10^k: every such ratio has a finite decimal expansion. Trailing zeros trimmed.
 */
export function exactDecimal(numerator: bigint, pow2: number, pow10: number): string {
  if (pow2 < 0 || pow10 < 0) throw new Error('exactDecimal: negative powers are not supported');
  const negative = numerator < 0n;
  const scaled = (negative ? -numerator : numerator) * 5n ** BigInt(pow2);
  const digits = pow2 + pow10;
  let s = scaled.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, '0');
    const int = s.slice(0, s.length - digits);
    const frac = s.slice(s.length - digits).replace(/0+$/, '');
    s = frac ? `${int}.${frac}` : int;
  }
  return negative && s !== '0' ? `-${s}` : s;
}

/** A Q32 quote-atom value in human quote units (exact decimal string). */
export function q32ToQuoteDecimal(valueQ32: bigint, decimalsY: number): string {
  return exactDecimal(valueQ32, 32, decimalsY);
}

/** A Q32 quote-atom value in human quote units as a JSON number (the only lossy step, at the edge). */
export function q32ToQuoteNumber(valueQ32: bigint, decimalsY: number): number {
  return Number(q32ToQuoteDecimal(valueQ32, decimalsY));
}

/** Kept for callers of the first version of this module; the exact decoding lives in ../math/q32.ts. */
export const midpriceRaw = q32ToDecimal;
export const humanPrice = humanPriceDecimal;
export const baseSpreadBps = spreadBpsDecimal;

/** TVL in Q32 quote atoms: x × mid + y (DESIGN §4). Without a midprice only the quote side counts. */
export function tvlQ32(vaultX: bigint, vaultY: bigint, midpriceQ32: bigint | null): bigint {
  return vaultX * (midpriceQ32 ?? 0n) + quoteAtomsToQ32(vaultY);
}
