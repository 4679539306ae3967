import { z } from 'zod/v4';
import { base58, DECIMALS_MAX, envelopeShape, int, feeSplitRecipientSchema, u64String } from './envelope';

export const SWAP_SIDES = ['buy', 'sell'] as const;

/**
 * One successful Hadron swap instruction (direct or via CPI). Amounts are exact atoms taken from
 * the swap's own inner transfers. `side`: `sell` sells X for Y (is_x != 0), `buy` buys X with Y.
 * The fee is charged in the input mint. Everything needed to value it travels with it, so a
 * projection never needs another event to price a swap.
 */
export const swapExecutedV1 = z.object({
  ...envelopeShape,
  type: z.literal('SwapExecuted'),
  data: z.object({
    side: z.enum(SWAP_SIDES),
    trader: base58,
    inputMint: base58,
    outputMint: base58,
    /** Gross input taken from the user (instruction amount_in). */
    amountIn: u64String,
    /** amountIn − fee, what reached the input vault. */
    amountInToVault: u64String,
    amountOut: u64String,
    feeRaw: u64String,
    feeMint: base58,
    feeRecipientAta: base58,
    decimalsX: int().min(0).max(DECIMALS_MAX),
    decimalsY: int().min(0).max(DECIMALS_MAX),
    /** Oracle midprice (Q32, quote atoms per base atom) in effect when the swap executed. */
    midpriceQ32: u64String.nullable(),
    spreadFactorQ32: u64String.nullable(),
    vaultXAfter: u64String,
    vaultYAfter: u64String,
    /** Fee split in effect; null = default single recipient, or before split tracking began. */
    feeSplit: z.array(feeSplitRecipientSchema).nullable(),
  }),
});
export type SwapExecutedV1 = z.infer<typeof swapExecutedV1>;
