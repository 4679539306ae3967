import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('doubles from the base after each failure in a row, up to the cap', () => {
    const policy = { baseMs: 500, maxMs: 30_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, policy))).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('stays at the cap through a long outage (no Infinity, no NaN), and treats attempt 0 like the first', () => {
    expect(backoffDelay(10_000, { baseMs: 250, maxMs: 30_000 })).toBe(30_000);
    expect(backoffDelay(10_000, { baseMs: 0, maxMs: 30_000 })).toBe(0);
    expect(backoffDelay(0, { baseMs: 100, maxMs: 1000 })).toBe(100);
  });

  it('with equal jitter waits between half and all of the delay', () => {
    const policy = { baseMs: 100, maxMs: 1000, jitter: 'equal' } as const;
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(300);
  });
});
