import { quoteAtomsToQ32 } from '../math/q32';

/** TVL in Q32 quote atoms: x × mid + y (DESIGN §4). Without a midprice only the quote side counts. */
export function tvlQ32(vaultX: bigint, vaultY: bigint, midpriceQ32: bigint | null): bigint {
  return vaultX * (midpriceQ32 ?? 0n) + quoteAtomsToQ32(vaultY);
}
