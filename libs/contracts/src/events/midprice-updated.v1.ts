import { z } from 'zod/v4';
import { base58, envelopeShape, u64String } from './envelope';

export const MIDPRICE_INSTRUCTIONS = ['UpdateMidprice', 'UpdateBaseSpread', 'UpdateMidpriceAndBaseSpread'] as const;

/**
 * One successful oracle update (tags 5, 9, 10). `midpriceQ32` / `spreadFactorQ32` are what the
 * instruction set, null where it set nothing (tag 5 leaves the spread factor, tag 9 the midprice),
 * as the chain does. `midpriceAfterQ32` / `spreadFactorAfterQ32` are the oracle's values right
 * after the update: the instruction's own, or the one in effect before it (the indexer tracks the
 * oracle in chain order, seeded from history before its start). Null when the indexer did not know
 * it; absent in events written before decoder 1.1.0. Consumers needing a complete point use them:
 * a value carried by the consumer itself can only come from facts it has already seen.
 */
export const midpriceUpdatedV1 = z.object({
  ...envelopeShape,
  type: z.literal('MidpriceUpdated'),
  data: z.object({
    instruction: z.enum(MIDPRICE_INSTRUCTIONS),
    oracle: base58,
    quotingAuthority: base58,
    sequence: u64String,
    midpriceQ32: u64String.nullable(),
    spreadFactorQ32: u64String.nullable(),
    midpriceAfterQ32: u64String.nullable().optional(),
    spreadFactorAfterQ32: u64String.nullable().optional(),
  }),
});
export type MidpriceUpdatedV1 = z.infer<typeof midpriceUpdatedV1>;
