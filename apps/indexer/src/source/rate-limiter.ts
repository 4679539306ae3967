import pLimit from 'p-limit';

/**
 * Token bucket per RPC endpoint (`RPC_RPS`). Every JSON-RPC call costs one token, so a batch of 50
 * calls costs 50 — RPC providers meter calls, not HTTP requests. A request bigger than the bucket
 * is let through by going into debt, which later callers wait off. Waiters are served in order.
 * Ours rather than npm `limiter`: that one rejects a cost above the bucket size (our batches), lets
 * waiters race instead of queueing them, and has no clock to inject in tests.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ratePerSecond: number,
    private readonly capacity: number = Math.max(1, ratePerSecond),
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    if (!(ratePerSecond > 0)) throw new RangeError('rate must be > 0');
    this.tokens = this.capacity;
    this.last = this.now();
  }

  /** Resolves when `cost` tokens have been taken. */
  acquire(cost = 1): Promise<void> {
    const turn = this.queue.then(() => this.take(cost));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async take(cost: number): Promise<void> {
    this.refill();
    if (this.tokens < Math.min(cost, this.capacity)) {
      await this.sleep(((Math.min(cost, this.capacity) - this.tokens) / this.ratePerSecond) * 1000);
      this.refill();
    }
    this.tokens -= cost; // may go negative (debt) for a cost above the capacity
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
    this.last = now;
  }
}

/**
 * At most `limit` tasks at once (HTTP requests in flight per endpoint), started in arrival order:
 * p-limit. Kept under this name so the transport reads as before.
 */
export class Semaphore {
  private readonly limit: pLimit.Limit;

  constructor(limit: number) {
    this.limit = pLimit(limit);
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.limit(task);
  }
}
