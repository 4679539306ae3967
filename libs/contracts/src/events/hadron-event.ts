import { z } from 'zod';
import { fastValidateHadronEvent } from './fast-validate';
import { feeSplitChangedV1 } from './fee-split-changed.v1';
import { midpriceUpdatedV1 } from './midprice-updated.v1';
import { poolConfigChangedV1, poolDiscoveredV1 } from './pool-discovered.v1';
import { swapExecutedV1 } from './swap-executed.v1';
import { vaultBalancesChangedV1 } from './vault-balances-changed.v1';

export const hadronEventSchema = z.discriminatedUnion('type', [
  poolDiscoveredV1,
  poolConfigChangedV1,
  midpriceUpdatedV1,
  swapExecutedV1,
  vaultBalancesChangedV1,
  feeSplitChangedV1,
]);

/** Every fact on the log. Consumers switch exhaustively over `type` (see assertNever). */
export type HadronEvent = z.infer<typeof hadronEventSchema>;
export type HadronEventType = HadronEvent['type'];
export type EventOf<T extends HadronEventType> = Extract<HadronEvent, { type: T }>;

export type ParseResult = { ok: true; event: HadronEvent } | { ok: false; reason: string };

/** Validates an untrusted payload (a JSON string or a parsed value) against the v1 contracts. */
export function parseHadronEvent(payload: unknown): ParseResult {
  let value = payload;
  if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
    try {
      value = JSON.parse(payload.toString());
    } catch (e) {
      return { ok: false, reason: `not JSON: ${(e as Error).message}` };
    }
  }
  const event = fastValidateHadronEvent(value);
  if (event !== undefined) return { ok: true, event };
  // Refused: zod, the definition, says why (and would accept anything the fast checks missed).
  const result = hadronEventSchema.safeParse(value);
  if (result.success) return { ok: true, event: result.data };
  const reason = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, reason };
}

export function assertNever(value: never): never {
  throw new Error(`unhandled event: ${JSON.stringify(value)}`);
}
