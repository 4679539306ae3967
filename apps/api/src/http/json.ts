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

/** A JSON body already written (see toJson); controllers return it with a JSON content type. */
export type JsonText = string & { readonly __json: true };

export function jsonText(value: unknown): JsonText {
  return toJson(value) as JsonText;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
