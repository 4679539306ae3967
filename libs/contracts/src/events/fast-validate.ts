import { BASE58_KEY_RE, BASE58_SIGNATURE_RE, CLUSTERS, POOL_STATES, U64_DECIMAL_RE, U64_MAX_TEXT } from './envelope';
import type { HadronEvent } from './hadron-event.schema';
import { MIDPRICE_INSTRUCTIONS } from './midprice-updated.v1';

/**
 * The v1 contracts as plain checks: the hot path of every consumer (replay validates each event).
 * The zod schemas stay the definition and the source of error reasons; this accepts exactly what
 * they accept and returns a value equal to theirs (unknown keys stripped, schema key order), which
 * fast-validate.spec.ts checks differentially on generated and mutated events. A zod refusal
 * costs ~30 µs per event; these checks cost ~1 µs.
 */

const INVALID: unique symbol = Symbol('invalid');
type Invalid = typeof INVALID;
type Check<T> = (v: unknown) => T | Invalid;
type Out<C> = C extends Check<infer T> ? T : never;

const str =
  (min: number, max: number, re?: RegExp): Check<string> =>
  (v) =>
    typeof v === 'string' && v.length >= min && v.length <= max && (re === undefined || re.test(v)) ? v : INVALID;

/** Base58 alphabet membership by char code: a table lookup per character costs far less than the regex. */
const BASE58_CHAR = new Uint8Array(128);
for (const c of '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz') BASE58_CHAR[c.charCodeAt(0)] = 1;

/** Same language as `re` (`^[base58]{min,max}$`), checked by hand. */
function base58Text(min: number, max: number, re: RegExp): Check<string> {
  if (re.source !== `^[1-9A-HJ-NP-Za-km-z]{${min},${max}}$`) throw new Error(`base58 check out of step with ${re.source}`);
  return (v) => {
    if (typeof v !== 'string' || v.length < min || v.length > max) return INVALID;
    for (let i = 0; i < v.length; i++) if (BASE58_CHAR[v.charCodeAt(i)] !== 1) return INVALID;
    return v;
  };
}

const key = base58Text(32, 44, BASE58_KEY_RE);
const signature = base58Text(64, 90, BASE58_SIGNATURE_RE);

/** Same language as U64_DECIMAL_RE plus the ≤ 2^64 − 1 bound, checked by hand. */
const u64: Check<string> = (v) => {
  if (typeof v !== 'string' || v.length === 0 || v.length > 20) return INVALID;
  if (v.length > 1 && v.charCodeAt(0) === 48) return INVALID; // leading zero
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return INVALID;
  }
  return v.length < 20 || v <= U64_MAX_TEXT ? v : INVALID;
};
if (U64_DECIMAL_RE.source !== '^(0|[1-9][0-9]*)$') throw new Error(`u64 check out of step with ${U64_DECIMAL_RE.source}`);

const int =
  (min = -Infinity, max = Infinity): Check<number> =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? v : INVALID;

const bool: Check<boolean> = (v) => (typeof v === 'boolean' ? v : INVALID);

function oneOf<const T extends string | number>(values: readonly T[]): Check<T> {
  const allowed = new Set<unknown>(values);
  return (v) => (allowed.has(v) ? (v as T) : INVALID);
}

const nullable =
  <T>(check: Check<T>): Check<T | null> =>
  (v) =>
    v === null ? null : check(v);

function array<T>(item: Check<T>): Check<T[]> {
  return (v) => {
    if (!Array.isArray(v)) return INVALID;
    const out: T[] = new Array(v.length);
    let same = true;
    for (let i = 0; i < v.length; i++) {
      const r = item(v[i]);
      if (r === INVALID) return INVALID;
      out[i] = r;
      same &&= r === v[i];
    }
    return same ? (v as T[]) : out;
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A key that may be absent (zod's `.optional()`): absent stays absent in the output. */
type OptionalCheck<T> = Check<T | undefined> & { readonly optional: true };
const optional = <T>(check: Check<T>): OptionalCheck<T> => Object.assign((v: unknown) => (v === undefined ? undefined : check(v)), { optional: true as const });

type OptionalKeys<S> = { [K in keyof S]: S[K] extends { optional: true } ? K : never }[keyof S];
type ObjectOut<S> = { [K in Exclude<keyof S, OptionalKeys<S>>]: Out<S[K]> } & { [K in OptionalKeys<S>]?: Out<S[K]> };

/**
 * An object with exactly the shape's keys, in the shape's order; other keys are dropped (as zod
 * strips). When the value already is exactly that (the usual case: a payload we wrote), it is
 * returned as is instead of copied.
 */
function object<S extends Record<string, Check<unknown>>>(shape: S): Check<ObjectOut<S>> {
  type T = ObjectOut<S>;
  const keys = Object.keys(shape);
  const checks = keys.map((k) => shape[k]);
  const optionalAt = checks.map((c) => (c as Partial<OptionalCheck<unknown>>).optional === true);
  return (v) => {
    if (!isRecord(v)) return INVALID;
    const values: unknown[] = new Array(keys.length);
    let same = true;
    for (let i = 0; i < keys.length; i++) {
      const r = checks[i](v[keys[i]]);
      if (r === INVALID) return INVALID;
      values[i] = r;
      same &&= r === v[keys[i]];
    }
    if (same && keysInOrder(v, keys, optionalAt)) return v as T;
    // Something to strip or reorder (rare): build the copy.
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) if (!(optionalAt[i] && values[i] === undefined && !(keys[i] in v))) out[keys[i]] = values[i];
    return out as T;
  };
}

/**
 * True when `v`'s own enumerable keys are exactly `keys` (less the optional ones it lacks), in
 * that order: nothing to strip or reorder.
 */
function keysInOrder(v: Record<string, unknown>, keys: readonly string[], optionalAt: readonly boolean[]): boolean {
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  let i = 0;
  for (const k in v) {
    while (i < keys.length && optionalAt[i] && keys[i] !== k && !(keys[i] in v)) i++;
    if (k !== keys[i++]) return false;
  }
  while (i < keys.length && optionalAt[i] && !(keys[i] in v)) i++;
  return i === keys.length;
}

const ppm = int(0, 1_000_000);
const decimals = int(0, 30);
const token = object({ mint: key, symbol: str(0, 64), name: str(0, 128), decimals, icon: str(0, 2048) });
const recipient = object({ recipient: key, ppm });
const nonNegative = int(0);

const envelope = {
  id: str(1, 200),
  version: oneOf([1]),
  cluster: oneOf(CLUSTERS),
  pool: key,
  slot: nonNegative,
  blockTime: nullable(int()),
  signature: nullable(signature),
  txIndex: nullable(nonNegative),
  ixIndex: nullable(nonNegative),
  innerIndex: nullable(nonNegative),
  decoderVersion: str(1, 32),
};

const poolSnapshot = object({
  programId: key,
  programVersion: oneOf([1, 2]),
  seed: u64,
  authority: key,
  quotingAuthority: nullable(key),
  oracle: key,
  tokenX: token,
  tokenY: token,
  vaultX: key,
  vaultY: key,
  poolState: oneOf(POOL_STATES),
  poolStateRaw: int(0, 255),
  oracleMode: int(0, 255),
  spreadConfigInitialized: bool,
  hasPoolFee: bool,
  feeConfig: nullable(key),
  feePpm: nullable(ppm),
  feeRecipient: nullable(key),
  midpriceQ32: nullable(u64),
  spreadFactorQ32: nullable(u64),
});

const event = <T extends string, D>(type: T, data: Check<D>) => object({ ...envelope, type: oneOf([type]), data });

const checks = {
  PoolDiscovered: event('PoolDiscovered', poolSnapshot),
  PoolConfigChanged: event('PoolConfigChanged', poolSnapshot),
  MidpriceUpdated: event(
    'MidpriceUpdated',
    object({
      instruction: oneOf(MIDPRICE_INSTRUCTIONS),
      oracle: key,
      quotingAuthority: key,
      sequence: u64,
      midpriceQ32: nullable(u64),
      spreadFactorQ32: nullable(u64),
      midpriceAfterQ32: optional(nullable(u64)),
      spreadFactorAfterQ32: optional(nullable(u64)),
    }),
  ),
  SwapExecuted: event(
    'SwapExecuted',
    object({
      side: oneOf(['buy', 'sell']),
      trader: key,
      inputMint: key,
      outputMint: key,
      amountIn: u64,
      amountInToVault: u64,
      amountOut: u64,
      feeRaw: u64,
      feeMint: key,
      feeRecipientAta: key,
      decimalsX: decimals,
      decimalsY: decimals,
      midpriceQ32: nullable(u64),
      spreadFactorQ32: nullable(u64),
      vaultXAfter: u64,
      vaultYAfter: u64,
      feeSplit: nullable(array(recipient)),
    }),
  ),
  VaultBalancesChanged: event('VaultBalancesChanged', object({ vaultX: key, vaultY: key, amountX: u64, amountY: u64 })),
  FeeSplitChanged: event('FeeSplitChanged', object({ feeConfig: key, feePpm: ppm, recipients: array(recipient) })),
  TokenMetadataChanged: event('TokenMetadataChanged', token),
} satisfies { [T in HadronEvent['type']]: Check<Extract<HadronEvent, { type: T }>> };

// Both directions: the checks produce exactly the contract's types, no more and no less.
type Checked = Out<(typeof checks)[keyof typeof checks]>;
const sameTypes: [Checked, HadronEvent] extends [HadronEvent, Checked] ? true : never = true;
void sameTypes;

const byType = new Map<unknown, Check<HadronEvent>>(Object.entries(checks));

/** The v1 event in `value` with unknown keys stripped, or undefined when any contract rule fails. */
export function fastValidateHadronEvent(value: unknown): HadronEvent | undefined {
  if (!isRecord(value)) return undefined;
  const check = byType.get(value.type);
  const r = check === undefined ? INVALID : check(value);
  return r === INVALID ? undefined : r;
}
