/**
 * Q32 fixed point (DESIGN §2: stored = real × 2^32), the one place it becomes decimal text.
 * Every quantity here is `num / (2^32 × 10^k)`, and 1/2^32 = 5^32/10^32, so each has a finite
 * decimal expansion: we print it exactly, and round to a double only on request (correctly, not
 * via a lossy float chain).
 *
 * Money is counted in "Q32 quote atoms": quote-token atoms × 2^32. A midprice is Q32 quote atoms
 * per base atom, so `base_atoms × midprice_q32` and `quote_atoms << 32` share one unit and sum
 * exactly. Human quote units appear only at the JSON edge: value / 2^32 / 10^decimals_y.
 */

const Q32_BITS = 32;
const BPS_PER_UNIT = 10_000n;

export const Q32_SHIFT = 32n;
export const Q32_ONE = 1n << Q32_SHIFT;

/** Quote atoms → Q32 quote atoms. */
export function quoteAtomsToQ32(atoms: bigint): bigint {
  return atoms << Q32_SHIFT;
}

/** A Q32 quote-atom value in human quote units (exact decimal string). */
export function q32ToQuoteDecimal(valueQ32: bigint, decimalsY: number): string {
  return ratioToDecimal(valueQ32, decimalsY);
}

/** A Q32 quote-atom value in human quote units as a JSON number (the only lossy step, at the edge). */
export function q32ToQuoteNumber(valueQ32: bigint, decimalsY: number): number {
  return Number(q32ToQuoteDecimal(valueQ32, decimalsY));
}

/** q / 2^32, exact. */
export function q32ToDecimal(q: bigint): string {
  return ratioToDecimal(q, 0);
}

export function q32ToDouble(q: bigint): number {
  return ratioToDouble(q, 0);
}

/** Human price = (midprice_q32 / 2^32) × 10^(decimals_x − decimals_y), exact. */
export function humanPriceDecimal(midpriceQ32: bigint, decimalsX: number, decimalsY: number): string {
  return ratioToDecimal(...decimalShift(midpriceQ32, decimalsX - decimalsY));
}

export function humanPriceDouble(midpriceQ32: bigint, decimalsX: number, decimalsY: number): number {
  return ratioToDouble(...decimalShift(midpriceQ32, decimalsX - decimalsY));
}

/** base_spread_bps = (1 − factor) × 10000, exact; negative when the factor is above 1. */
export function spreadBpsDecimal(spreadFactorQ32: bigint): string {
  return ratioToDecimal(spreadBpsNumerator(spreadFactorQ32), 0);
}

export function spreadBpsDouble(spreadFactorQ32: bigint): number {
  return ratioToDouble(spreadBpsNumerator(spreadFactorQ32), 0);
}

const spreadBpsNumerator = (factorQ32: bigint): bigint => ((1n << 32n) - factorQ32) * BPS_PER_UNIT;

/** Multiplying by 10^shift: into the numerator when positive, the denominator when negative. */
function decimalShift(q: bigint, shift: number): [bigint, number] {
  return shift >= 0 ? [q * 10n ** BigInt(shift), 0] : [q, -shift];
}

/** num / (2^32 × 10^pow10) as a decimal string, trailing zeros trimmed. */
function ratioToDecimal(num: bigint, pow10: number): string {
  return exactDecimal(num, Q32_BITS, pow10);
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

/** num / (2^32 × 10^pow10) rounded to the nearest double (ties to even). */
function ratioToDouble(num: bigint, pow10: number): number {
  if (num === 0n) return 0;
  const negative = num < 0n;
  const n = negative ? -num : num;
  const d = (10n ** BigInt(pow10)) << BigInt(Q32_BITS);
  // Scale so the integer quotient has 54 or 55 bits, trim it to 53, then round once. Our values are far
  // from the subnormal and overflow ranges, so `× 2^-shift` below is exact.
  let shift = 54 - (bitLength(n) - bitLength(d));
  let den = shift >= 0 ? d : d << BigInt(-shift);
  const scaled = shift >= 0 ? n << BigInt(shift) : n;
  let q = scaled / den;
  let rem = scaled % den;
  while (q >= 1n << 53n) {
    // Drop one bit into the remainder: keep exactly 53 significant bits.
    rem += (q & 1n) * den;
    den <<= 1n;
    q >>= 1n;
    shift -= 1;
  }
  const twice = rem * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  const abs = Number(q) * 2 ** -shift;
  return negative ? -abs : abs;
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}
