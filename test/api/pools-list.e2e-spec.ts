import { AUTH1, AUTH2, BONK, datasetEvents, NOW, POOL_A, POOL_B, POOL_C, POOL_D, POOL_E, POOL_F, QUOTER1, QUOTER2, SOL, USDC, WIF } from './support/dataset';
import { addr, poolDiscovered } from './support/events';
import { startApiHarness, waitFor, type ApiHarness } from './support/harness';

/** No indexer has published its progress in these tests: `as_of` has nothing to say yet. */
const NOT_PUBLISHED = { slot: null, time: null, lag_seconds: null };

/** GET /pools — spec §1 parameter table, rules 1–3, response fields; DESIGN §5 pool-list decisions. */
describe('GET /pools', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
  });
  afterAll(async () => h?.close());

  const list = async (qs = '') => {
    const r = await h.get(`/pools${qs}`);
    expect(r.status).toBe(200);
    return r.body as { total: number; pages: number; current_page: number; page_size: number; data: any[] };
  };
  const addresses = async (qs: string) => (await list(qs)).data.map((p) => p.address);
  const [lowTie, highTie] = [POOL_E, POOL_F].sort();

  describe('response', () => {
    it('has every spec field for a pool, with DESIGN §4 valuation', async () => {
      const body = await list('?query=' + POOL_A);
      expect(body).toMatchObject({ total: 1, pages: 1, current_page: 1, page_size: 20 });
      expect(body.data[0]).toEqual({
        address: POOL_A,
        name: 'SOL/USDC',
        token_x: { address: SOL.mint, symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, icon: SOL.icon },
        token_y: { address: USDC.mint, symbol: 'USDC', name: 'USD Coin', decimals: 6, icon: '' },
        token_x_amount: 1_000_000_000_000,
        token_y_amount: 50_000_000_000,
        pool_config: { authority: AUTH1, quoting_authority: QUOTER1, oracle_mode: 0, pool_state: 'Initialized', base_spread_bps: 0.6103515625 },
        tvl: 300_000, // 1000 SOL × 250 + 50 000 USDC
        current_price: 250, // 0.25 atoms × 10^(9−6)
        volume: { '24h': 5 }, // s1..s5
        fees: { '24h': 0.013 }, // spread 0.008 + protocol fee 0.005
      });
    });

    it('writes u64 token amounts with exact digits', async () => {
      const r = await h.get('/pools?query=' + POOL_B);
      expect(r.text).toContain('"token_x_amount":18446744073709551615,');
    });

    it('is JSON with a JSON content type', async () => {
      const r = await h.get('/pools');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
    });
  });

  describe('page and page_size', () => {
    it('defaults: page 1, page_size 20', async () => {
      expect(await list()).toMatchObject({ total: 5, pages: 1, current_page: 1, page_size: 20 });
    });
    it('paginates; total and pages describe the whole result', async () => {
      const p1 = await list('?page_size=2');
      const p3 = await list('?page_size=2&page=3');
      expect(p1).toMatchObject({ total: 5, pages: 3, current_page: 1, page_size: 2 });
      expect(p1.data).toHaveLength(2);
      expect(p3).toMatchObject({ total: 5, pages: 3, current_page: 3 });
      expect(p3.data).toHaveLength(1);
      const all = [...p1.data, ...(await list('?page_size=2&page=2')).data, ...p3.data].map((p) => p.address);
      expect(all).toEqual(await addresses(''));
    });
    it('a page beyond the last: empty data, correct totals', async () => {
      expect(await list('?page_size=2&page=4')).toEqual({ total: 5, pages: 3, current_page: 4, page_size: 2, data: [], as_of: NOT_PUBLISHED });
      expect(await list('?page=9007199254740991')).toMatchObject({ total: 5, pages: 1, data: [] });
    });
    it('page_size maximum is 100', async () => {
      expect((await list('?page_size=100')).page_size).toBe(100);
    });
    it.each([['0'], ['-1'], ['1.5'], ['abc'], [''], ['1e1'], ['9007199254740992']])('page=%p → 400 naming page', async (v) => {
      expect(await h.get(`/pools?page=${v}`)).toMatchObject({
        status: 400,
        body: { statusCode: 400, message: 'page must be an integer >= 1 (default 1)', error: 'Bad Request' },
      });
    });
    it.each([['0'], ['101'], ['-5'], ['20.5'], ['twenty']])('page_size=%p → 400 naming page_size and its range', async (v) => {
      expect(await h.get(`/pools?page_size=${v}`)).toMatchObject({
        status: 400,
        body: { message: 'page_size must be an integer from 1 to 100 (default 20)', error: 'Bad Request' },
      });
    });
  });

  describe('query', () => {
    it('matches the pool name case-insensitively', async () => {
      expect(await addresses('?query=sol%2Fusdc')).toEqual([POOL_A]);
    });
    it('matches a token symbol case-insensitively (either side)', async () => {
      expect(await addresses('?query=SoL')).toEqual([POOL_A, POOL_C]);
      expect(await addresses('?query=bonk')).toEqual([POOL_B]);
    });
    it('matches a mint address exactly (either side)', async () => {
      expect(await addresses(`?query=${SOL.mint}`)).toEqual([POOL_A, POOL_C]);
      expect(await addresses(`?query=${SOL.mint.slice(0, -1)}`)).toEqual([]);
      expect(await addresses(`?query=${SOL.mint.toLowerCase()}`)).toEqual([]);
    });
    it('matches the pool address exactly', async () => {
      expect(await addresses(`?query=${POOL_C}`)).toEqual([POOL_C]);
      expect(await addresses(`?query=${POOL_C.slice(0, 10)}`)).toEqual([]);
    });
  });

  describe('exact filters', () => {
    it('authority', async () => {
      expect(await addresses(`?authority=${AUTH2}`)).toEqual([POOL_B]);
    });
    it('quoting_authority', async () => {
      expect(await addresses(`?quoting_authority=${QUOTER2}`)).toEqual([POOL_C]);
    });
    it('token: either side', async () => {
      expect(await addresses(`?token=${SOL.mint}`)).toEqual([POOL_A, POOL_C]);
    });
    it('token_x: base side only', async () => {
      expect(await addresses(`?token_x=${SOL.mint}`)).toEqual([POOL_A]);
      expect(await addresses(`?token_x=${BONK.mint}`)).toEqual([POOL_B]);
    });
    it('token_y: quote side only', async () => {
      expect(await addresses(`?token_y=${SOL.mint}`)).toEqual([POOL_C]);
    });
    it('rule 1: filters AND with each other, with query and with cluster', async () => {
      expect(await addresses(`?token=${SOL.mint}&authority=${AUTH1}&query=jup`)).toEqual([POOL_C]);
      expect(await addresses(`?token=${SOL.mint}&authority=${AUTH2}`)).toEqual([]);
      expect(await addresses(`?authority=${AUTH2}&cluster=devnet`)).toEqual([POOL_D]);
    });
    it('rule 2: total and pages describe the filtered set', async () => {
      expect(await list(`?authority=${AUTH1}&page_size=2`)).toMatchObject({ total: 4, pages: 2 });
    });
  });

  describe('pool_state', () => {
    it('is case-insensitive', async () => {
      expect(await addresses('?pool_state=paused')).toEqual([POOL_B]);
      expect(await addresses('?pool_state=UNINITIALIZED')).toEqual([POOL_F]);
      expect(await addresses('?pool_state=Initialized')).toEqual([POOL_A, POOL_C, POOL_E]);
    });
    it('rule 3: an unrecognized value returns zero matches, not an error', async () => {
      expect(await list('?pool_state=Frozen')).toEqual({ total: 0, pages: 0, current_page: 1, page_size: 20, data: [], as_of: NOT_PUBLISHED });
    });
  });

  describe('sort_by', () => {
    it('default volume_24h:desc, ties by address', async () => {
      expect(await addresses('')).toEqual([POOL_A, POOL_B, POOL_C, lowTie, highTie]);
    });
    it('tvl, volume_24h, fees_24h in both directions; ties broken by address ascending', async () => {
      expect(await addresses('?sort_by=tvl:desc')).toEqual([POOL_B, POOL_A, POOL_C, lowTie, highTie]);
      expect(await addresses('?sort_by=tvl:asc')).toEqual([lowTie, highTie, POOL_C, POOL_A, POOL_B]);
      expect(await addresses('?sort_by=volume_24h:asc')).toEqual([lowTie, highTie, POOL_C, POOL_B, POOL_A]);
      expect(await addresses('?sort_by=fees_24h:desc')).toEqual([POOL_A, POOL_B, POOL_C, lowTie, highTie]);
      expect(await addresses('?sort_by=fees_24h:asc')).toEqual([lowTie, highTie, POOL_C, POOL_B, POOL_A]);
    });
    it.each([['tvl'], ['tvl:up'], ['price:desc'], ['TVL:DESC'], ['']])('sort_by=%p → 400 listing the allowed values', async (v) => {
      const r = await h.get(`/pools?sort_by=${v}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(
        'sort_by must be one of: tvl:asc, tvl:desc, volume_24h:asc, volume_24h:desc, fees_24h:asc, fees_24h:desc (default volume_24h:desc)',
      );
    });
  });

  describe('cluster', () => {
    it('defaults to mainnet-beta', async () => {
      expect(await addresses('?cluster=mainnet-beta')).toEqual(await addresses(''));
      expect(await addresses('')).not.toContain(POOL_D);
    });
    it('devnet lists devnet pools only', async () => {
      const body = await list('?cluster=devnet');
      expect(body.total).toBe(1);
      expect(body.data[0]).toMatchObject({ address: POOL_D, name: 'WIF/USDC', token_x: { address: WIF.mint }, volume: { '24h': 9 } });
    });
    it.each([['testnet'], ['Devnet'], ['']])('cluster=%p → 400 naming the allowed values', async (v) => {
      expect(await h.get(`/pools?cluster=${v}`)).toMatchObject({
        status: 400,
        body: { statusCode: 400, message: 'cluster must be one of: mainnet-beta, devnet', error: 'Bad Request' },
      });
    });
  });

  it('empty filter values mean "no filter"', async () => {
    expect(await list('?query=&authority=&token=')).toMatchObject({ total: 5 });
  });

  it('a new pool appears once projections advance (snapshot refresh)', async () => {
    const pool = addr('pool:late');
    await h.project([poolDiscovered({ pool, blockTime: NOW - 5 }, { tokenX: WIF, tokenY: USDC, authority: AUTH2, quotingAuthority: null, midpriceQ32: null })]);
    await waitFor(async () => (await addresses(`?query=${pool}`)).length === 1, 5000, 'the new pool in /pools');
    expect(await list()).toMatchObject({ total: 6 });
  });
});
