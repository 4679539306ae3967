import { datasetEvents, DAY, FEES_A, NOW, POOL_A, POOL_B, POOL_C, POOL_D, SOL, SPLIT_A_1H, SPLIT_A_24H, UNKNOWN_POOL, USDC } from './support/dataset';
import { inject, startApiHarness, type ApiHarness } from './support/harness';

/** GET /pools/{address}/fees — spec §2 parameters, fees report fields, split rules 1–4; DESIGN §5 windows, exactness, cap. */
describe('GET /pools/:address/fees', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
  });
  afterAll(async () => h?.close());

  const fees = async (pool: string, qs = '') => {
    const r = await h.get(`/pools/${pool}/fees${qs}`);
    expect(r.status).toBe(200);
    return r.body;
  };

  it('interval defaults to 24h; window [now − 86400, now]; every report field', async () => {
    expect(await fees(POOL_A)).toEqual({
      interval: '24h',
      start_time: NOW - DAY,
      end_time: NOW,
      mint_x: SOL.mint,
      mint_y: USDC.mint,
      totals: FEES_A['24h'],
      protocol_fee_split: SPLIT_A_24H,
      truncated: false,
      // No indexer has published its progress in this test: nothing to say yet.
      as_of: { slot: null, time: null, lag_seconds: null },
    });
  });

  it.each(['1h', '24h', '7d', '30d', 'all'] as const)(
    'interval=%s: exact totals (whole hours and minutes from rollups + raw partial minutes)',
    async (interval) => {
      const body = await fees(POOL_A, `?interval=${interval}`);
      expect(body.interval).toBe(interval);
      expect(body.end_time).toBe(NOW);
      expect(body.totals).toEqual(FEES_A[interval]);
      expect(body.truncated).toBe(false);
    },
  );

  it('start_time is 0 for all; otherwise end − length', async () => {
    expect((await fees(POOL_A, '?interval=all')).start_time).toBe(0);
    expect((await fees(POOL_A, '?interval=1h')).start_time).toBe(NOW - 3600);
    expect((await fees(POOL_A, '?interval=7d')).start_time).toBe(NOW - 7 * DAY);
    expect((await fees(POOL_A, '?interval=30d')).start_time).toBe(NOW - 30 * DAY);
  });

  it('window bounds are inclusive on both ends (swap time = block time)', async () => {
    // s2 sits exactly at NOW and s5 exactly at NOW − 86400; s6 one second earlier is out.
    expect((await fees(POOL_A, '?interval=24h')).totals.swap_count).toBe(5);
  });

  describe('protocol_fee_split', () => {
    it('per recipient, latest ppm in the window, largest share first', async () => {
      expect((await fees(POOL_A, '?interval=1h')).protocol_fee_split).toEqual(SPLIT_A_1H);
    });
    it('rule 4: the split sums to less than the protocol fee when the window has default-fee swaps', async () => {
      const body = await fees(POOL_A, '?interval=1h');
      const sum = body.protocol_fee_split.reduce((a: number, s: { fee_usd: number }) => a + s.fee_usd, 0);
      expect(sum).toBeCloseTo(0.002, 12);
      expect(body.totals.protocol_fee_usd).toBe(0.003);
    });
    it('rule 1 / 3: empty for a pool on the default single recipient (no split tracked)', async () => {
      const body = await fees(POOL_B, '?interval=24h');
      expect(body.totals).toMatchObject({ volume_usd: 2, protocol_fee_usd: 0.002, protocol_fee_y_raw: 2000, swap_count: 2 });
      expect(body.protocol_fee_split).toEqual([]);
    });
    it('rule 2: empty for a window with no fee-bearing split swaps', async () => {
      const c24 = await fees(POOL_C, '?interval=24h'); // one split swap, zero fee
      expect(c24.totals).toMatchObject({ volume_usd: 1, protocol_fee_usd: 0, swap_count: 1 });
      expect(c24.protocol_fee_split).toEqual([]);
      const c7d = await fees(POOL_C, '?interval=7d'); // plus a fee-bearing swap without split
      expect(c7d.totals).toMatchObject({ volume_usd: 2, protocol_fee_usd: 0.001, protocol_fee_y_raw: 1_000_000, swap_count: 2 });
      expect(c7d.protocol_fee_split).toEqual([]);
    });
  });

  describe('cluster', () => {
    it('devnet pools answer with cluster=devnet', async () => {
      const body = await fees(POOL_D, '?cluster=devnet');
      expect(body.totals).toMatchObject({ volume_usd: 9, swap_count: 1 });
    });
    it('a pool is unknown on the other cluster: 404 Pool not found', async () => {
      expect(await h.get(`/pools/${POOL_D}/fees`)).toMatchObject({ status: 404, body: { statusCode: 404, message: 'Pool not found', error: 'Not Found' } });
      expect(await h.get(`/pools/${POOL_A}/fees?cluster=devnet`)).toMatchObject({ status: 404, body: { message: 'Pool not found' } });
    });
    it('cluster=mainnet-beta is the default', async () => {
      expect(await fees(POOL_A, '?cluster=mainnet-beta')).toEqual(await fees(POOL_A));
    });
    it('an invalid cluster: 400 naming the allowed values', async () => {
      expect(await h.get(`/pools/${POOL_A}/fees?cluster=localnet`)).toMatchObject({
        status: 400,
        body: { message: 'cluster must be one of: mainnet-beta, devnet', error: 'Bad Request' },
      });
    });
  });

  it('an unknown pool: 404 Pool not found', async () => {
    expect(await h.get(`/pools/${UNKNOWN_POOL}/fees`)).toEqual(
      expect.objectContaining({
        status: 404,
        body: { statusCode: 404, message: 'Pool not found', error: 'Not Found', code: 'pool_not_found', parameter: 'address' },
      }),
    );
    expect((await h.get('/pools/not-even-base58!/fees')).status).toBe(400); // not an address at all (edge-hardening e2e)
  });

  it.each([['2h'], ['24H'], ['1d'], [''], ['all,1h']])('interval=%p → 400 naming interval and its values', async (v) => {
    expect(await h.get(`/pools/${POOL_A}/fees?interval=${encodeURIComponent(v)}`)).toMatchObject({
      status: 400,
      body: { statusCode: 400, message: 'interval must be one of: 1h, 24h, 7d, 30d, all (default 24h)', error: 'Bad Request' },
    });
  });

  it('writes raw fee atoms with exact digits', async () => {
    const r = await h.get(`/pools/${POOL_A}/fees?interval=all`);
    expect(r.text).toContain('"protocol_fee_x_raw":4000,"protocol_fee_y_raw":9000');
  });

  describe('no swap cap: every window is exact (running totals), truncated is always false', () => {
    it('the windows a cap of 1 or 2 used to truncate or split into raw edges are exact, and the removed FEES_SWAP_CAP setting changes nothing', async () => {
      for (const cap of ['1', '2']) {
        const app = await h.startApp({ FEES_SWAP_CAP: cap });
        for (const [interval, split] of [
          ['24h', SPLIT_A_24H],
          ['1h', SPLIT_A_1H],
        ] as const) {
          expect((await inject(app, `/pools/${POOL_A}/fees?interval=${interval}`)).body).toMatchObject({
            truncated: false,
            totals: FEES_A[interval],
            protocol_fee_split: split,
          });
        }
      }
    });
  });
});
