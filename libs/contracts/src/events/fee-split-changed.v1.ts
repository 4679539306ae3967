import { z } from 'zod/v4';
import { base58, envelopeShape, int, feeSplitRecipientSchema, PPM_MAX } from './envelope';

/**
 * The fee split a pool's fee config names. `recipients` is empty when the pool uses the default
 * single recipient (no split). The multi-recipient layout is an assumption (DESIGN §2 [A]).
 */
export const feeSplitChangedV1 = z.object({
  ...envelopeShape,
  type: z.literal('FeeSplitChanged'),
  data: z.object({
    feeConfig: base58,
    feePpm: int().min(0).max(PPM_MAX),
    recipients: z.array(feeSplitRecipientSchema),
  }),
});
export type FeeSplitChangedV1 = z.infer<typeof feeSplitChangedV1>;
