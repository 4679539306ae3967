import { ApiMetrics } from '../metrics/api-metrics';
import type { DataFreshness } from '../freshness/data-freshness';
import type { ProjectionPosition } from '../freshness/projection-position';
import type { PoolListSnapshot } from '../pools/pool-list/pool-list.snapshot';
import { cacheKey, ResponseCache } from './response-cache';

function cacheOf(maxEntries: number, maxBytes: number, position = { v: 'p1' }) {
  const pos = { fresh: async () => position.v, latest: () => position.v } as unknown as ProjectionPosition;
  const gen = { generation: 0 };
  const cache = new ResponseCache(
    { API_RESPONSE_CACHE_MAX_ENTRIES: maxEntries, API_RESPONSE_CACHE_MAX_BYTES: maxBytes },
    pos,
    gen as unknown as PoolListSnapshot,
    gen as unknown as DataFreshness,
    new ApiMetrics(),
  );
  return { cache, position };
}

const entry = (version: string, body: string) => ({ version, body, etag: '"t"', contentType: 'application/json', cacheControl: 'public, max-age=1' });

describe('ResponseCache', () => {
  it('keys: the query pairs in any order are one key; another second, path or value is another', () => {
    expect(cacheKey('/pools/a/fees?interval=1h&cluster=devnet', 5)).toBe(cacheKey('/pools/a/fees?cluster=devnet&interval=1h', 5));
    expect(cacheKey('/pools/a/fees?interval=1h', 5)).not.toBe(cacheKey('/pools/a/fees?interval=1h', 6));
    expect(cacheKey('/pools/a/fees?interval=1h', 5)).not.toBe(cacheKey('/pools/b/fees?interval=1h', 5));
    expect(cacheKey('/pools/a/fees?interval=1h', 5)).not.toBe(cacheKey('/pools/a/fees?interval=24h', 5));
    expect(cacheKey('/pools/a/fees', 5)).not.toBe(cacheKey('/pools/a/fees?', 5));
  });

  it('serves an entry only while the position it was made at is current', async () => {
    const { cache, position } = cacheOf(10, 1e6);
    const miss = await cache.lookup('k');
    expect(miss.hit).toBeUndefined();
    cache.store('k', entry((miss as { version: string }).version, 'body'));
    expect((await cache.lookup('k')).hit?.body).toBe('body');
    position.v = 'p2';
    expect((await cache.lookup('k')).hit).toBeUndefined();
  });

  it('holds at most maxEntries and about maxBytes, dropping the least recently used first', async () => {
    const { cache } = cacheOf(3, 2000);
    const v = ((await cache.lookup('x')) as { version: string }).version;
    for (const k of ['a', 'b', 'c']) cache.store(k, entry(v, 'x'.repeat(100)));
    await cache.lookup('a'); // a is now the most recently used
    cache.store('d', entry(v, 'x'.repeat(100)));
    expect(cache.size.entries).toBe(3);
    expect((await cache.lookup('b')).hit).toBeUndefined();
    expect((await cache.lookup('a')).hit).toBeDefined();
    cache.store('big', entry(v, 'x'.repeat(1500)));
    expect(cache.size.bytes).toBeLessThanOrEqual(2000);
    expect((await cache.lookup('big')).hit).toBeDefined();
    cache.store('huge', entry(v, 'x'.repeat(5000))); // larger than the whole cache: not kept
    expect((await cache.lookup('huge')).hit).toBeUndefined();
    expect(cache.size.bytes).toBeLessThanOrEqual(2000);
  });
});
