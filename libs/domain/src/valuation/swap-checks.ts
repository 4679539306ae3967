import { splitProblem, type SplitWeight } from './fee-split';

/** What a projection needs to be true of a swap before it can value it. */
export interface SwapFacts {
  side: 'buy' | 'sell';
  inputMint: string;
  outputMint: string;
  feeMint: string;
  amountIn: bigint;
  amountInToVault: bigint;
  feeRaw: bigint;
  decimalsX: number;
  decimalsY: number;
  midpriceQ32: bigint | null;
  feeSplit: readonly SplitWeight[] | null;
}

/** Token decimals we can convert to human units (SPL mints use 0..~18; the contract allows ≤ 30). */
export const MAX_DECIMALS = 30;

/**
 * Why a swap cannot be applied (a poison event: it goes to the dead-letter table with this
 * reason), or null. Only facts that can never become valid by retrying are checked here.
 */
export function swapProblem(s: SwapFacts): string | null {
  for (const [name, d] of [
    ['decimalsX', s.decimalsX],
    ['decimalsY', s.decimalsY],
  ] as const) {
    if (!Number.isInteger(d) || d < 0 || d > MAX_DECIMALS) return `${name} ${d} is out of range 0..${MAX_DECIMALS}`;
  }
  if (s.amountInToVault + s.feeRaw !== s.amountIn) {
    return `amounts are inconsistent: amountInToVault ${s.amountInToVault} + feeRaw ${s.feeRaw} != amountIn ${s.amountIn}`;
  }
  if (s.inputMint === s.outputMint) return `input and output mint are the same (${s.inputMint})`;
  if (s.feeMint !== s.inputMint) return `fee mint ${s.feeMint} is not the input mint ${s.inputMint}`;
  if (s.midpriceQ32 !== null && s.midpriceQ32 <= 0n) return 'midpriceQ32 must be positive (or null before the first oracle update)';
  if (s.feeSplit !== null) return splitProblem(s.feeSplit);
  return null;
}
