import { z } from 'zod/v4';
import { feeSplitChangedV1 } from './fee-split-changed.v1';
import { midpriceUpdatedV1 } from './midprice-updated.v1';
import { poolConfigChangedV1, poolDiscoveredV1 } from './pool-discovered.v1';
import { swapExecutedV1 } from './swap-executed.v1';
import { tokenMetadataChangedV1 } from './token-metadata-changed.v1';
import { vaultBalancesChangedV1 } from './vault-balances-changed.v1';

export const hadronEventSchema = z.discriminatedUnion('type', [
  poolDiscoveredV1,
  poolConfigChangedV1,
  midpriceUpdatedV1,
  swapExecutedV1,
  vaultBalancesChangedV1,
  feeSplitChangedV1,
  tokenMetadataChangedV1,
]);

/** Every fact on the log. Consumers switch exhaustively over `type` (see assertNever). */
export type HadronEvent = z.infer<typeof hadronEventSchema>;
export type HadronEventType = HadronEvent['type'];
export type EventOf<T extends HadronEventType> = Extract<HadronEvent, { type: T }>;
