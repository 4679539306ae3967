import { Semaphore, TokenBucket } from './rate-limiter';
import { RetryPolicy, RpcFailure, rpcErrorFailure } from './retry-policy';

describe('TokenBucket (RPC_RPS per endpoint)', () => {
  /** A fake clock: sleeping advances it. */
  function fakeClock() {
    let now = 0;
    const slept: number[] = [];
    return { now: () => now, sleep: async (ms: number) => void (slept.push(ms), (now += ms)), slept };
  }

  it('given a full bucket, when calls fit, then nothing waits', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 10, clock.now, clock.sleep);
    for (let i = 0; i < 10; i++) await bucket.acquire();
    expect(clock.slept).toEqual([]);
  });

  it('given an empty bucket, when one more call comes, then it waits 1/rate seconds', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 10, clock.now, clock.sleep);
    await bucket.acquire(10);
    await bucket.acquire(1);
    expect(clock.slept).toEqual([100]);
  });

  it('given a batch larger than the bucket, when it comes, then it goes into debt and the next caller pays it off', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(10, 10, clock.now, clock.sleep);
    await bucket.acquire(30); // a 30-call batch: allowed at once (full bucket), leaves −20
    await bucket.acquire(1);
    expect(clock.slept).toEqual([2100]); // 21 tokens at 10/s
  });

  it('keeps 1 000 calls at 100/s to about 10 s of simulated time, in arrival order', async () => {
    const clock = fakeClock();
    const bucket = new TokenBucket(100, 100, clock.now, clock.sleep);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 1000 }, (_, i) => bucket.acquire().then(() => order.push(i))));
    expect(clock.now()).toBeGreaterThanOrEqual(9000);
    expect(clock.now()).toBeLessThanOrEqual(9100);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

describe('Semaphore (HTTP requests in flight)', () => {
  it('never runs more than the limit at once', async () => {
    const sem = new Semaphore(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        sem.run(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((r) => setTimeout(r, 2));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });
});

describe('RetryPolicy (our own, never the client library’s)', () => {
  const policy = (random = 0.5) => new RetryPolicy({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 }, () => random);

  it('backs off exponentially with jitter between half and the full step, capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => policy(0).delayMs(n))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => policy(1).delayMs(n))).toEqual([100, 200, 400, 800, 1000]);
  });

  it('honours Retry-After, within the cap', () => {
    const limited = new RpcFailure('rate_limited', 'HTTP 429', true, { status: 429, retryAfterMs: 700 });
    expect(policy(0).delayMs(1, limited)).toBe(700);
    expect(policy(0).delayMs(1, new RpcFailure('rate_limited', 'HTTP 429', true, { retryAfterMs: 60_000 }))).toBe(1000);
  });

  it('retries what can pass, up to the attempt budget; never a permanent error', () => {
    const p = policy();
    for (const kind of ['rate_limited', 'server_error', 'timeout', 'network', 'malformed', 'missing'] as const)
      expect(p.shouldRetry(1, new RpcFailure(kind, kind, true))).toBe(true);
    expect(p.shouldRetry(5, new RpcFailure('timeout', 't', true))).toBe(false);
    expect(p.shouldRetry(1, rpcErrorFailure('getTransaction', { code: -32602, message: 'Invalid params' }))).toBe(false);
    expect(p.shouldRetry(1, rpcErrorFailure('getBlock', { code: -32004, message: 'Block not available' }))).toBe(true);
    expect(p.shouldRetry(1, rpcErrorFailure('getSlot', { code: -32005, message: 'Node is behind' }))).toBe(true);
  });
});
