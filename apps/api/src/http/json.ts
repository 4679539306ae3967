import { randomBytes } from 'node:crypto';

/**
 * Writes a response body: JSON.stringify, plus `bigint` written with its exact digits (raw token
 * amounts are u64: a JS number would round them above 2^53; JSON itself has no limit). A bigint
 * becomes a marker string during stringify, then the quoted marker is replaced by the digits. The
 * marker starts with NUL (always escaped by JSON.stringify) and a per-process random tag, so no
 * client-supplied or on-chain string can forge it.
 */
const TAG = `\u0000${randomBytes(6).toString('hex')}:`;
const MARKED = new RegExp(`"\\\\u0000${TAG.slice(1)}(-?[0-9]+)"`, 'g');

const replacer = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? `${TAG}${v}` : v);

export function toJson(value: unknown): string {
  // Most bodies hold no bigint: stringify without a replacer (a third faster); a bigint throws.
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  const text = JSON.stringify(value, replacer) ?? 'null';
  return text.includes(TAG.slice(1)) ? text.replace(MARKED, '$1') : text;
}

/** Thrown (without a stack) by writePlain at anything but plain data: the value is then written by toJson. */
const NOT_PLAIN = Object.freeze({ notPlain: true });

/** What JSON.stringify writes for plain data (objects and arrays of Object/Array prototype, primitives), bigint as its digits. */
function writePlain(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (v === null) return 'null';
  const proto: unknown = Object.getPrototypeOf(v);
  if (Array.isArray(v) && proto === Array.prototype) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + (writePlain(v[i]) ?? 'null');
    return `${out}]`;
  }
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const o = v as Record<string, unknown>;
  if (typeof o.toJSON === 'function') throw NOT_PLAIN;
  let out = '';
  for (const key of Object.keys(o)) {
    const item = writePlain(o[key]);
    if (item !== undefined) out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${item}`;
  }
  return `{${out}}`;
}

/**
 * toJson for a body that holds bigints (e.g. raw amounts as JSON numbers): the same text, written
 * in one pass, without first letting JSON.stringify fail on the bigint (an exception with a stack,
 * then a replacer and a regex: several times the cost). Anything but plain data goes to toJson.
 */
export function toJsonWithBigInts(value: unknown): string {
  try {
    return writePlain(value) ?? 'null';
  } catch (e) {
    if (e !== NOT_PLAIN) throw e;
    return toJson(value);
  }
}

/** A JSON body already written (see toJson); controllers return it with a JSON content type. */
export type JsonText = string & { readonly __json: true };

export function jsonText(value: unknown): JsonText {
  return toJson(value) as JsonText;
}

/** jsonText for a body that usually holds bigints (see toJsonWithBigInts). */
export function jsonTextWithBigInts(value: unknown): JsonText {
  return toJsonWithBigInts(value) as JsonText;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Array items handled per turn of the event loop by the *InSlices helpers (≈ 1 ms of work). */
export const SLICE = 2000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `items.map(fn)`, giving the event loop a turn every SLICE items: a 100,000-bucket history is
 * built without making a request for the in-memory pool list wait behind it.
 */
export async function mapInSlices<T, R>(items: readonly T[], fn: (item: T) => R): Promise<R[]> {
  const out = new Array<R>(items.length);
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % SLICE === 0) await nextTurn();
    out[i] = fn(items[i]);
  }
  return out;
}

/**
 * jsonText(value) for a body with a large `data` array, the array written SLICE items per turn of
 * the event loop. Same text as jsonText (the array is spliced in where it stands).
 */
export async function jsonTextInSlices<T extends { data: readonly unknown[] }>(value: T): Promise<JsonText> {
  const data = value.data;
  if (data.length <= SLICE) return jsonText(value);
  const parts: string[] = [];
  for (let i = 0; i < data.length; i += SLICE) {
    if (i > 0) await nextTurn();
    parts.push(toJson(data.slice(i, i + SLICE)).slice(1, -1)); // without the slice's own brackets
  }
  const placeholder = `${TAG}data`; // NUL-prefixed and tagged: no client or chain string can equal it
  const envelope = toJson({ ...value, data: placeholder });
  return envelope.replace(JSON.stringify(placeholder), () => `[${parts.join(',')}]`) as JsonText;
}

/**
 * The body `{...envelope, "data": [...]}` with each item written by `item` straight from a database
 * row (no object per item, no generic stringify), SLICE items per turn of the event loop. `item`
 * must write exactly what toJson writes for the item's object (each use has a test that says so).
 */
export async function jsonTextWithItems<R>(envelope: object, rows: readonly R[], item: (row: R) => string): Promise<JsonText> {
  let data = '';
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % SLICE === 0) await nextTurn();
    data += i > 0 ? `,${item(rows[i])}` : item(rows[i]);
  }
  return jsonTextWithData(envelope, data);
}

/**
 * The body `{...envelope, "data": [<data>]}`, the items already written as JSON and joined by
 * commas (`data`: '' or null for none), e.g. by Postgres. Each use has a test that the items are
 * what toJson writes for them.
 */
export function jsonTextWithData(envelope: object, data: string | null): JsonText {
  const head = toJson(envelope);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"data":[${data ?? ''}]}` as JsonText;
}

/**
 * What JSON.stringify escapes in a string: quote, backslash, control characters, and lone
 * surrogates (a pair is written as is; it only takes the slower path here).
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A JSON value of a nullable string (what toJson writes for it). A string with nothing to escape
 * (a signature, an address) is only quoted: a third cheaper than JSON.stringify.
 */
export const jsonString = (s: string | null): string => (s === null ? 'null' : NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

/**
 * The JSON number toJson writes for `Number(v)`, `v` an int8 column as node-postgres returns it
 * (its text) or a number. Postgres writes an int8 with no `+` and no leading zero, so text of at
 * most 15 characters is exactly that number's JSON (below 2^53, no exponent): it is used as it
 * is, without a parse and a format per value. Longer text goes through Number (rounded, as toJson would).
 */
export const jsonInt8 = (v: string | number): string => (typeof v === 'string' && v.length <= 15 ? v : String(Number(v)));
