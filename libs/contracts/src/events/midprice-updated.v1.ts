import { z } from 'zod';
import { base58, envelopeShape, u64String } from './envelope';

export const MIDPRICE_INSTRUCTIONS = ['UpdateMidprice', 'UpdateBaseSpread', 'UpdateMidpriceAndBaseSpread'] as const;

/**
 * One successful oracle update (tags 5, 9, 10). Fields the instruction did not set are null:
 * tag 5 leaves the spread factor, tag 9 the midprice, as the chain does.
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
  }),
});
export type MidpriceUpdatedV1 = z.infer<typeof midpriceUpdatedV1>;
