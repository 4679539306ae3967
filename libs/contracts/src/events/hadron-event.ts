import { fastParseHadronEvent } from './hadron-event.fast-path';
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
  // The hot path of every consumer (replay validates each event): hand-written checks that accept
  // exactly what the schema does and return what zod would. Whatever they do not accept goes to
  // zod, whose verdict and reason are the contract (apps/projector/bench/validate.bench.ts).
  const event = fastParseHadronEvent(value);
  if (event !== undefined) return { ok: true, event };
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
