/**
 * A midprice sample's JSON written by Postgres, byte for byte what the API writes for it in
 * JavaScript (its sampleJson: `{"timestamp":…,"slot":…,"midprice":…,"base_spread_factor":…,
 * "signature":…}`, the Q32 numbers as `String(Number(q) / 2^32)`). The projector stores it per
 * last point (midprice v5's `sample_json`: all but the opening `{"timestamp":<bucket>`), older
 * builds derive it in their views, and the API's history queries join the samples in Postgres,
 * so a day of 5m samples is sent without the API formatting a number.
 *
 * Postgres writes a float8 in the shortest text that reads back as the same double, as
 * JavaScript does, when `extra_float_digits` is 1 or more (every connection made by
 * createPool sets it). The two differ only in where they switch to an exponent: Postgres below
 * 10^-4 (`9e-05`, `1.5e-07`), JavaScript below 10^-6 (`0.00009`, `1.5e-7`). A Q32 value is at
 * most 2^32 and, when not 0, at least 2^-32, so only the small end needs rewriting: from
 * `q < 429,497` (q / 2^32 < 10^-4 exactly) the text is rewritten, which a plain ratio never pays.
 * midprice-sample-json.int-spec.ts compares the two on random u64s of every size.
 *
 * Slots and timestamps are written as their digits: what JavaScript writes for them below 2^53
 * (no Solana slot or unix time comes near; above it JavaScript would round them).
 */

const Q32 = '4294967296';

/** The smallest Q32 whose ratio is at least 10^-4 (429,497 / 2^32 ≈ 1.0000006e-4; 429,496 / 2^32 < 10^-4). */
const FIXED_FROM = 429_497;

/**
 * The JSON number of a Q32 column (numeric) as the API writes it, `null` for null. Below 10^-4,
 * Postgres's `d[.ddd]e-05` and `e-06` become `0.0000d…` and `0.00000d…`, and `e-07` … `e-09`
 * lose the exponent's leading zero (from 10^-10 on, both write two digits).
 */
export function q32JsonSql(col: string): string {
  const ratio = `(${col}::float8 / ${Q32})`;
  return `CASE WHEN ${col} >= ${FIXED_FROM} THEN ${ratio}::text WHEN ${col} IS NULL THEN 'null' WHEN ${col} = 0 THEN '0'
    ELSE regexp_replace(regexp_replace(regexp_replace(${ratio}::text,
      '^(-?)([0-9])\\.?([0-9]*)e-05$', '\\10.0000\\2\\3'), '^(-?)([0-9])\\.?([0-9]*)e-06$', '\\10.00000\\2\\3'), 'e-0', 'e-') END`;
}

/**
 * The JSON number of a Q32 value (u64 text) as the API writes it, `null` for null: Number(text)
 * rounds once, dividing by 2^32 is exact, and String writes the shortest text that reads back as
 * that double. q32JsonSql is the same in Postgres.
 */
export const q32Json = (q: string | null): string => (q === null ? 'null' : String(Number(q) / 4_294_967_296));

/**
 * A sample's JSON but the opening `{"timestamp":<t>`, from a row's `slot` and `signature` and the
 * JSON of its two Q32 numbers (`midprice`, `spread`: expressions, or columns holding them, as
 * midprice v7's points store them, written by the projector with q32Json). `json` writes the signature's JSON value or null.
 */
export const sampleJsonOfNumbersSql = (midprice: string, spread: string, json: (col: string) => string): string =>
  `',"slot":' || slot::text || ',"midprice":' || ${midprice} || ',"base_spread_factor":' || ${spread} || ',"signature":' || coalesce(${json('signature')}, 'null') || '}'`;

/**
 * A sample's JSON but the opening `{"timestamp":<t>` (the bucket is the row's key, or its ts),
 * from a row's `slot`, `midprice_q32`, `spread_factor_q32` and `signature`. `json` writes a text
 * column's JSON value or null: `to_json(c)::text` in a query or a view; in a generated column
 * (immutable functions only) a build's own wrapper.
 */
export const sampleJsonRestSql = (json: (col: string) => string): string =>
  sampleJsonOfNumbersSql(q32JsonSql('midprice_q32'), q32JsonSql('spread_factor_q32'), json);

/**
 * A base58 text's JSON value: the text quoted, for it holds no character JSON escapes. Only for
 * a column whose table refuses anything else (midprice v7's points check their signature).
 */
export const quotedBase58 = (col: string): string => `'"' || ${col} || '"'`;

/** The Postgres pattern of a base58 text (Bitcoin's alphabet: no 0, O, I or l): what `quotedBase58` relies on. */
export const BASE58_PATTERN_SQL = "'^[1-9A-HJ-NP-Za-km-z]+$'";

/** A text column's JSON in a query or a view (to_json escapes what JSON.stringify does; null stays null). */
export const toJsonText = (col: string): string => `to_json(${col})::text`;

/** The whole sample from its timestamp expression and the rest (stored, derived, or computed here). */
export const sampleJsonSql = (timestamp: string, rest: string): string => `'{"timestamp":' || ${timestamp}::text || ${rest}`;
