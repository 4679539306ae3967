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

/** Every error response: Nest's shape, `message` always one string. */
export interface ApiErrorBody {
  statusCode: number;
  message: string;
  error: string;
}

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
