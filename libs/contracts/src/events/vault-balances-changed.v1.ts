import { z } from 'zod/v4';
import { base58, envelopeShape, u64String } from './envelope';

/** Vault balances after a Hadron transaction (any tag) changed them, from postTokenBalances. */
export const vaultBalancesChangedV1 = z.object({
  ...envelopeShape,
  type: z.literal('VaultBalancesChanged'),
  data: z.object({ vaultX: base58, vaultY: base58, amountX: u64String, amountY: u64String }),
});
export type VaultBalancesChangedV1 = z.infer<typeof vaultBalancesChangedV1>;
