import { fastValidateHadronEvent } from './fast-validate';
import { hadronEventSchema, type HadronEvent } from './hadron-event.schema';

export * from './hadron-event.schema';

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
