/**
 * Exponential backoff: the one delay formula of every retry loop (RPC calls, the event-log
 * consumers, Kafka consumer restarts, the indexer's cycle and gap retries). The loops themselves
 * stay where they are because each waits its own way — rounds of per-item batches, a sleep a new
 * append may cut short, a timer — so only the delay is shared, not a `retry(fn)` wrapper.
 */
export interface Backoff {
  /** The delay after the first failure. */
  baseMs: number;
  /** No delay above this. */
  maxMs: number;
  /** 'equal': a random delay in [d/2, d], so clients failing together do not retry together; 'none' (default): exactly d. */
  jitter?: 'none' | 'equal';
}

/** Delay after `attempt` failures in a row (1-based): d = min(maxMs, baseMs·2^(attempt−1)), then jitter. Not rounded. */
export function backoffDelay(attempt: number, { baseMs, maxMs, jitter = 'none' }: Backoff, random: () => number = Math.random): number {
  // The exponent is bounded so a long outage gives maxMs, never Infinity·0 = NaN.
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 1000));
  return jitter === 'equal' ? exp / 2 + random() * (exp / 2) : exp;
}
