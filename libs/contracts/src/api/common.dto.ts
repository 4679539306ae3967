import { CLUSTERS, type Cluster } from '../events/envelope';

/**
 * HTTP contract of the read API (spec `pool-analytics-read-api.md` + DESIGN §5). Plain types and
 * constants only: the API app adds the framework decorators (validation, OpenAPI) around them.
 */

export { CLUSTERS, type Cluster };
export const DEFAULT_CLUSTER: Cluster = 'mainnet-beta';

/**
 * A JSON integer. `bigint` where the value may exceed 2^53 (raw token atoms): the API writes it
 * with its exact digits, so clients with big-integer JSON parsers get it exactly.
 */
export type JsonInteger = number | bigint;

/** A raw atom amount: a JSON integer, or its decimal string with `raw_amounts=string`. */
export type RawAmount = JsonInteger | string;

/**
 * What went wrong, for programs: `message` is for people and may be reworded, a code is not.
 * `invalid_parameter` and `unknown_parameter` name the parameter in `parameter`.
 */
export const API_ERROR_CODES = [
  'invalid_parameter',
  'unknown_parameter',
  'invalid_request',
  'pool_not_found',
  'not_found',
  'method_not_allowed',
  'body_not_allowed',
  'rate_limited',
  'overloaded',
  'unavailable',
  'internal_error',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** `raw_amounts`: raw atom amounts as JSON integers (default; exact digits, may exceed 2^53) or as decimal strings. */
export const RAW_AMOUNT_FORMATS = ['number', 'string'] as const;
export type RawAmountFormat = (typeof RAW_AMOUNT_FORMATS)[number];

/** The four messages the spec fixes, verbatim. */
export const SPEC_ERROR_MESSAGES = {
  invalidTimeframe: 'Invalid timeframe',
  invalidTimeRange: 'start_time and end_time must be valid unix timestamps in seconds',
  invalidCursor: 'cursor must be a valid unix timestamp in seconds',
  volumeTimeframe: 'Only 24h timeframe is supported for volume history in v1',
} as const;

export const POOL_NOT_FOUND_MESSAGE = 'Pool not found';

/**
 * A "valid Unix timestamp in seconds": a plain decimal integer from 0 to 9,999,999,999 (year 2286).
 * Negative, fractional, exponent, hex or empty values are refused, and so are 13-digit values:
 * those are milliseconds, the most common client mistake.
 */
export const UNIX_SECONDS_MAX = 9_999_999_999;
