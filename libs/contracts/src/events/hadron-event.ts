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
  // The hot path of every consumer. zod 4 compiles each object schema to straight-line checks: a
  // valid event costs about what JSON.parse of it does (apps/projector/bench/validate.bench.ts).
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
