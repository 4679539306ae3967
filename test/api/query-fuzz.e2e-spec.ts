import fc from 'fast-check';
import { datasetEvents, NOW, POOL_A, POOL_D, UNKNOWN_POOL } from './support/dataset';
import { errorShape, startApiHarness, type ApiHarness } from './support/harness';

/** Property: no query string, on any endpoint, produces a 5xx; every 4xx has the one error shape. */
describe('random query strings never produce a 5xx', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
  });
  afterAll(async () => h?.close());

  const KNOWN = [
    'page',
    'page_size',
    'query',
    'authority',
    'quoting_authority',
    'token',
    'token_x',
    'token_y',
    'pool_state',
    'sort_by',
    'cluster',
    'interval',
    'timeframe',
    'start_time',
    'end_time',
    'limit',
    'cursor',
  ];
  const SPECIAL = [
    '&',
    '=',
    '?',
    '+',
    ';',
    ',',
    '/',
    '[',
    ']',
    '%',
    '%%',
    '%0',
    '%zz',
    '%E0%A4%A',
    '%00',
    '%FF',
    '*',
    '!',
    '$',
    "'",
    '(',
    ')',
    '~',
    '-',
    '.',
    '_',
  ];
  const value = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '-0',
      '-1',
      '1',
      '01',
      '1.0',
      '1.5',
      '1e3',
      '0x10',
      '9007199254740993',
      '9999999999',
      '10000000000',
      '1764003725',
      '1764003725000',
      'NaN',
      'Infinity',
      'null',
      'true',
      '[]',
      '{}',
      '__proto__',
    ),
    fc.constantFrom('raw', '1m', '1h', '24h', '7d', '30d', 'all', 'devnet', 'mainnet-beta', 'tvl:desc', 'fees_24h:asc', 'Initialized', POOL_A),
    fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String),
    fc.double({ noNaN: false }).map(String),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.string({ unit: 'binary', maxLength: 12 }).map(encodeURIComponent),
    fc.array(fc.constantFrom(...SPECIAL), { maxLength: 4 }).map((a) => a.join('')),
  );
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...KNOWN) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'a[b]', 'page[]', 'page.x', '', '%', '%zz'),
    },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent) },
  );
  const query = fc
    .array(fc.tuple(key, value, fc.boolean()), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v, withEq]) => (withEq || v ? `${k}=${v}` : k)).join('&'));
  const address = fc.oneof(
    fc.constantFrom(POOL_A, POOL_D, UNKNOWN_POOL, 'x', '%20', '%zz', '..', '%2F'),
    fc.string({ minLength: 1, maxLength: 60 }).map(encodeURIComponent),
  );
  const path = fc.oneof(
    fc.constant('/pools'),
    address.map((a) => `/pools/${a}/fees`),
    address.map((a) => `/pools/${a}/midprice/history`),
    address.map((a) => `/pools/${a}/volume/history`),
  );

  it('on every endpoint (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        const r = await h.get(`${p}?${q}`);
        if (r.status >= 500) throw new Error(`${p}?${q} → ${r.status} ${r.text}`);
        if (r.status >= 400) expect(r.body).toEqual(errorShape(r.status, r.body));
      }),
      { numRuns: 1500 },
    );
  });

  it('mostly valid queries with one parameter mutated (fast-check)', async () => {
    const valid: Record<string, string[]> = {
      '/pools': ['page=2', 'page_size=5', 'sort_by=tvl:asc', 'cluster=mainnet-beta', 'query=sol', 'pool_state=paused'],
      [`/pools/${POOL_A}/fees`]: ['interval=7d', 'cluster=mainnet-beta'],
      [`/pools/${POOL_A}/midprice/history`]: ['timeframe=raw', 'limit=3', `cursor=${NOW}`, `start_time=${NOW - 7200}`, `end_time=${NOW}`],
      [`/pools/${POOL_A}/volume/history`]: ['timeframe=24h', `start_time=${NOW - 86400 * 3}`, `end_time=${NOW}`],
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(valid)), fc.nat(), value, async (p, i, v) => {
        const params = [...valid[p]];
        const k = i % params.length;
        params[k] = `${params[k].split('=')[0]}=${v}`;
        const r = await h.get(`${p}?${params.join('&')}`);
        if (r.status >= 500) throw new Error(`${p}?${params.join('&')} → ${r.status} ${r.text}`);
        expect([200, 400, 404]).toContain(r.status); // 404: cluster mutated to devnet
      }),
      { numRuns: 1000 },
    );
  });
});
