import type { SwapValue } from './swap-valuation';

export const PPM_ONE = 1_000_000;

export interface SplitWeight {
  recipient: string;
  ppm: number;
}

/**
 * One recipient's share of one swap's protocol fee. Shares are kept EXACT by not dividing by
 * 10^6: each amount is `fee × ppm` (unit × 10^6). Summed over recipients whose ppm add up to
 * 1,000,000 they equal the fee × 10^6 exactly; divide by 10^6 only at the JSON edge.
 */
export interface FeeShare {
  recipient: string;
  ppm: number;
  feeXRawX1e6: bigint;
  feeYRawX1e6: bigint;
  feeValueQ32X1e6: bigint;
}

/** Merges repeated recipients (their ppm add up); order of first appearance. */
export function normaliseSplit(split: readonly SplitWeight[]): SplitWeight[] {
  // Most splits name each recipient once, and are short: a pairwise check, then a plain copy.
  if (split.length <= 16 && !hasRepeatedRecipient(split)) return split.map(({ recipient, ppm }) => ({ recipient, ppm }));
  const byRecipient = new Map<string, number>();
  for (const w of split) byRecipient.set(w.recipient, (byRecipient.get(w.recipient) ?? 0) + w.ppm);
  return [...byRecipient].map(([recipient, ppm]) => ({ recipient, ppm }));
}

function hasRepeatedRecipient(split: readonly SplitWeight[]): boolean {
  for (let i = 1; i < split.length; i++) for (let j = 0; j < i; j++) if (split[i].recipient === split[j].recipient) return true;
  return false;
}

/** Why a split cannot be applied, or null. Only the total counts, so a split need not be normalised first (merging repeated recipients keeps it). */
export function splitProblem(split: readonly SplitWeight[]): string | null {
  const total = split.reduce((a, w) => a + w.ppm, 0);
  return total > PPM_ONE ? `fee split weights add up to ${total} ppm, more than ${PPM_ONE}` : null;
}

/**
 * The per-recipient shares of a swap's fee. Only fee-bearing swaps that carried a split have
 * shares (spec "Rules for protocol_fee_split"): a null split (default recipient, or before split
 * tracking began) or a zero fee gives none.
 */
export function feeShares(value: Pick<SwapValue, 'feeXRaw' | 'feeYRaw' | 'protocolFeeQ32'>, split: readonly SplitWeight[] | null): FeeShare[] {
  if (split === null || (value.feeXRaw === 0n && value.feeYRaw === 0n)) return [];
  return normaliseSplit(split).map(({ recipient, ppm }) => {
    const w = BigInt(ppm);
    return { recipient, ppm, feeXRawX1e6: value.feeXRaw * w, feeYRawX1e6: value.feeYRaw * w, feeValueQ32X1e6: value.protocolFeeQ32 * w };
  });
}
