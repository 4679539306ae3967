import { backoffDelay } from '@hadron/platform/runtime/backoff';

/**
 * Our own retry policy for RPC calls (we never let a client library retry behind our back):
 * exponential backoff with jitter, honouring a server's Retry-After, on failures that can pass
 * (429, 5xx, timeouts, dropped connections, malformed bodies, a transaction not yet available).
 */

export type RpcFailureKind =
  /** HTTP 429 or the in-band rate-limit error. */
  | 'rate_limited'
  /** HTTP 5xx or another non-2xx status. */
  | 'server_error'
  | 'timeout'
  /** Connection refused/reset/dropped before an answer. */
  | 'network'
  /** Not JSON, a JSON-RPC envelope we cannot use, a result of the wrong shape, or a body over RPC_MAX_RESPONSE_BYTES. */
  | 'malformed'
  /** A JSON-RPC error object. `retryable` tells whether it can pass (node behind, block not yet available). */
  | 'rpc_error'
  /** A `null` where the call must find something (a signature the node listed but cannot serve yet). */
  | 'missing';

export class RpcFailure extends Error {
  override readonly name = 'RpcFailure';

  constructor(
    readonly kind: RpcFailureKind,
    message: string,
    readonly retryable: boolean,
    /** `tooLarge`: the answer passed RPC_MAX_RESPONSE_BYTES (a batch is split before it is retried). */
    readonly details: { status?: number; code?: number; retryAfterMs?: number; tooLarge?: boolean } = {},
  ) {
    super(message);
  }
}

/** JSON-RPC error codes that can pass with time (Solana RPC). Everything else is permanent. */
const RETRYABLE_RPC_CODES = new Set([
  429, // rate limited, reported in-band by some providers
  -32004, // block not available for slot (yet)
  -32005, // node is behind / unhealthy
  -32014, // block status not yet available
  -32016, // minimum context slot not reached
  -32603, // internal error
]);

export function rpcErrorFailure(method: string, error: { code?: unknown; message?: unknown }): RpcFailure {
  const code = typeof error.code === 'number' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : 'unknown error';
  const kind: RpcFailureKind = code === 429 ? 'rate_limited' : 'rpc_error';
  return new RpcFailure(kind, `${method}: RPC error ${code ?? '?'}: ${message}`, code !== undefined && RETRYABLE_RPC_CODES.has(code), { code });
}

export interface RetryPolicyOptions {
  /** Attempts in total (1 = no retry). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export class RetryPolicy {
  constructor(
    readonly options: RetryPolicyOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /** Delay before attempt `attempt + 1` after `attempt` failed (1-based): base·2^(n−1), capped, with equal jitter. */
  delayMs(attempt: number, failure?: RpcFailure): number {
    const backoff = { baseMs: this.options.baseDelayMs, maxMs: this.options.maxDelayMs, jitter: 'equal' } as const;
    const jittered = backoffDelay(attempt, backoff, this.random);
    const hinted = failure?.details.retryAfterMs;
    return Math.round(hinted !== undefined ? Math.min(this.options.maxDelayMs, Math.max(jittered, hinted)) : jittered);
  }

  shouldRetry(attempt: number, failure: RpcFailure): boolean {
    return failure.retryable && attempt < this.options.maxAttempts;
  }
}

export function isRpcFailure(e: unknown): e is RpcFailure {
  return e instanceof RpcFailure;
}
