/**
 * Exact Q32 conversions (DESIGN §2: stored = real × 2^32). Every quantity here is
 * `num / (2^32 × 10^k)`, and 1/2^32 = 5^32/10^32, so each has a finite decimal expansion: we print
 * it exactly, and round to a double only on request (correctly, not via a lossy float chain).
 */

const Q32_BITS = 32;
const BPS_PER_UNIT = 10_000n;

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
  const negative = num < 0n;
  // num / (2^32 · 10^k) = num · 5^32 / 10^(32 + k)
  const digits = (negative ? -num : num) * 5n ** BigInt(Q32_BITS);
  const scale = Q32_BITS + pow10;
  const text = digits.toString().padStart(scale + 1, '0');
  const int = text.slice(0, text.length - scale);
  const frac = text.slice(text.length - scale).replace(/0+$/, '');
  const abs = frac ? `${int}.${frac}` : int;
  return negative && abs !== '0' ? `-${abs}` : abs;
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
