import { D0, datasetEvents, DAY, NOW, POOL_A, POOL_D, UNKNOWN_POOL, VOLUME_A_DEFAULT } from './support/dataset';
import { ReadDb } from '../../apps/api/src/database/read-db';
import { inject, startApiHarness, type ApiHarness } from './support/harness';

/** GET /pools/{address}/volume/history — spec §4 parameters and error; DESIGN §5 daily buckets. */
describe('GET /pools/:address/volume/history', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
  });
  afterAll(async () => h?.close());

  const url = (qs: string, pool = POOL_A) => `/pools/${pool}/volume/history${qs}`;
  const history = async (qs = '', pool = POOL_A) => {
    const r = await h.get(url(qs, pool));
    expect(r.status).toBe(200);
    return r.body;
  };

  it('defaults: timeframe 24h, start 7 days before now, end now; UTC-midnight buckets, ascending, zero-filled', async () => {
    expect(await history()).toEqual({ start_time: NOW - 7 * DAY, end_time: NOW, timeframe: '24h', data: VOLUME_A_DEFAULT });
  });

  it('timeframe=24h is accepted', async () => {
    expect((await history('?timeframe=24h')).data).toEqual(VOLUME_A_DEFAULT);
  });

  it('start_time / end_time select the days they touch (whole-day totals), echoed as given', async () => {
    const body = await history(`?start_time=${D0 - DAY + 5}&end_time=${D0 + 10}`);
    expect(body).toMatchObject({ start_time: D0 - DAY + 5, end_time: D0 + 10 });
    expect(body.data).toEqual(VOLUME_A_DEFAULT.slice(-2));
  });

  it('one day', async () => {
    expect((await history(`?start_time=${D0}&end_time=${D0}`)).data).toEqual([VOLUME_A_DEFAULT.at(-1)]);
  });

  it('old and no-block-time swaps appear only in their own day', async () => {
    const body = await history(`?start_time=0&end_time=${D0 - 39 * DAY}`);
    expect(body.data[0]).toEqual({ timestamp: 0, volume: 1, fees: 0.0025 }); // s10: no block time → day 0
    expect(body.data.at(-1).timestamp).toBe(D0 - 39 * DAY);
    expect(body.data.find((d: { timestamp: number }) => d.timestamp === D0 - 40 * DAY)).toEqual({ timestamp: D0 - 40 * DAY, volume: 1, fees: 0.0025 }); // s9
    expect(body.data.filter((d: { volume: number }) => d.volume > 0)).toHaveLength(2);
  });

  it('cluster selects the cluster; a pool of the other cluster is 404', async () => {
    expect((await history('?cluster=devnet', POOL_D)).data.at(-1)).toEqual({ timestamp: D0, volume: 9, fees: 0.01 });
    expect(await h.get(url('?cluster=devnet'))).toMatchObject({ status: 404, body: { statusCode: 404, message: 'Pool not found', error: 'Not Found' } });
    expect(await h.get(url('?cluster=mainnet'))).toMatchObject({ status: 400, body: { message: 'cluster must be one of: mainnet-beta, devnet' } });
  });

  it('unknown pool → 404 Pool not found', async () => {
    expect(await h.get(url('', UNKNOWN_POOL))).toMatchObject({ status: 404, body: { message: 'Pool not found' } });
  });

  it.each([['1h'], ['4h'], ['12h'], ['1d'], ['7d'], [''], ['24H']])(
    'timeframe=%p → 400 Only 24h timeframe is supported for volume history in v1',
    async (v) => {
      expect(await h.get(url(`?timeframe=${v}`))).toMatchObject({
        status: 400,
        body: { statusCode: 400, message: 'Only 24h timeframe is supported for volume history in v1', error: 'Bad Request' },
      });
    },
  );

  it.each([
    ['start_time', '-86400'],
    ['end_time', '1.5'],
    ['start_time', 'last-week'],
    ['end_time', '1764003725123'],
  ])('%s=%p → 400 naming the timestamp rule', async (name, v) => {
    expect(await h.get(url(`?${name}=${v}`))).toMatchObject({
      status: 400,
      body: { message: 'start_time and end_time must be valid unix timestamps in seconds' },
    });
  });

  it('start_time after end_time → 400 (also when the default start is after an explicit end)', async () => {
    expect(await h.get(url(`?start_time=${NOW}&end_time=${NOW - 1}`))).toMatchObject({
      status: 400,
      body: { message: 'start_time must be less than or equal to end_time' },
    });
    expect(await h.get(url(`?end_time=${NOW - 8 * DAY}`))).toMatchObject({
      status: 400,
      body: { message: 'start_time must be less than or equal to end_time (start_time defaults to 7 days before now)' },
    });
  });

  it('at most 36600 daily buckets per request', async () => {
    expect((await history(`?start_time=0&end_time=${NOW}`)).data).toHaveLength(D0 / DAY + 1);
    const r = await h.get(url('?start_time=0&end_time=9999999999'));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^The range spans 115741 days; volume history returns at most 36600 daily buckets per request/);
  });

  it('histories asked for at once share round trips, and each is exactly its own answer', async () => {
    // Windows of every size over both pools (the devnet one too), several touching no swap.
    const asks = Array.from({ length: 48 }, (_, i) => {
      const end = NOW - (i % 12) * 3 * DAY - i;
      const start = Math.max(0, end - ((i * 7) % 45) * DAY - 1);
      return i % 4 === 3 ? url(`?cluster=devnet&start_time=${start}&end_time=${end}`, POOL_D) : url(`?start_time=${start}&end_time=${end}`);
    });
    const alone = [];
    for (const u of asks) alone.push(await h.get(u));
    // An app without the response cache, which would answer the repeated URLs itself.
    const app = await h.startApp({ API_RESPONSE_CACHE_MAX_ENTRIES: '0' });
    const stats = app.get(ReadDb).batchStats;
    const before = { ...stats };
    const together = await Promise.all(asks.map((u) => inject(app, u)));
    expect(together.map((r) => [r.status, r.body])).toEqual(alone.map((r) => [r.status, r.body]));
    expect(alone.every((r) => r.status === 200)).toBe(true);
    expect(alone.filter((r) => r.body.data.some((d: { volume: number }) => d.volume > 0)).length).toBeGreaterThan(20);
    expect(stats.executions - before.executions).toBe(asks.length);
    expect(stats.roundTrips - before.roundTrips).toBeLessThan(asks.length / 2); // not vacuous: they did share
  });
});
