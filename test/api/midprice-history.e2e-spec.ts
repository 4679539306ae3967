import { D0, datasetEvents, DAY, H0, midSlot, midValue, NOW, POOL_A, POOL_D, SPREAD_FACTOR, UNKNOWN_POOL, type MidKey } from './support/dataset';
import { startApiHarness, type ApiHarness } from './support/harness';

/**
 * GET /pools/{address}/midprice/history — spec §3 parameters, response fields, the three midprice
 * error messages; DESIGN §5: path, epoch-aligned buckets with the last update, ascending, only
 * buckets with data; raw newest-first cursor walking that never skips or repeats.
 */
describe('GET /pools/:address/midprice/history', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
  });
  afterAll(async () => h?.close());

  const url = (qs: string, pool = POOL_A) => `/pools/${pool}/midprice/history${qs}`;
  const history = async (qs = '', pool = POOL_A) => {
    const r = await h.get(url(qs, pool));
    expect(r.status).toBe(200);
    return r.body;
  };
  const spreadFactor = Number(SPREAD_FACTOR) / 2 ** 32;
  const point = (timestamp: number, k: MidKey) => ({
    timestamp,
    slot: midSlot(k),
    midprice: midValue(k),
    base_spread_factor: spreadFactor,
    signature: expect.any(String),
  });

  describe('sampled', () => {
    it('defaults: timeframe 1h over [end − 86400, end], end = now; no next_cursor', async () => {
      const body = await history();
      expect(body).toEqual({
        start_time: NOW - DAY,
        end_time: NOW,
        timeframe: '1h',
        data: [point(H0 - 7200, 'm2'), point(H0, 'm7')],
      });
      expect('next_cursor' in body).toBe(false);
    });

    it('buckets are epoch-aligned, ascending, only those with data, values of the last update in each', async () => {
      expect((await history('?timeframe=1m')).data).toEqual([
        point(H0 - 7200, 'm1'),
        point(H0 - 7200 + 3000, 'm2'),
        point(H0, 'm4b'), // five updates in minute H0; the last is m4b
        point(H0 + 60, 'm5'),
        point(H0 + 120, 'm7'),
      ]);
      expect((await history('?timeframe=5m')).data).toEqual([point(H0 - 7200, 'm1'), point(H0 - 7200 + 3000, 'm2'), point(H0, 'm7')]);
      expect((await history('?timeframe=24h')).data).toEqual([point(D0, 'm7')]); // UTC day buckets
    });

    it('partial edge minutes use raw points: the last update inside the range', async () => {
      // [H0+20, H0+20]: only the three updates of that second (m3a, m3b, m3c).
      expect((await history(`?timeframe=1m&start_time=${H0 + 20}&end_time=${H0 + 20}`)).data).toEqual([point(H0, 'm3c')]);
      // [H0+21, NOW] in 1h buckets: bucket H0's last update is m7.
      expect((await history(`?timeframe=1h&start_time=${H0 + 21}`)).data).toEqual([point(H0, 'm7')]);
      // [H0−8000, H0+21] in 4h buckets: hour H0−2h from the hourly rollup (last m2), H0..H0+21 raw (last m4b).
      expect((await history(`?timeframe=4h&start_time=${H0 - 8000}&end_time=${H0 + 21}`)).data).toEqual([point(H0 - 18_000, 'm2'), point(H0 - 3600, 'm4b')]);
    });

    it('each body is the text JavaScript writes for it (numbers, signatures, order of fields), sampled and raw, whoever wrote the samples', async () => {
      for (const qs of [
        '',
        '?timeframe=1m',
        '?timeframe=5m',
        '?timeframe=30m',
        `?timeframe=4h&start_time=${H0 - 8000}&end_time=${H0 + 21}`,
        '?timeframe=raw&limit=3',
      ]) {
        const r = await h.get(url(qs));
        expect(r.status).toBe(200);
        expect((JSON.parse(r.text) as { data: unknown[] }).data.length).toBeGreaterThan(0);
        expect(r.text).toBe(JSON.stringify(JSON.parse(r.text)));
      }
    });

    it.each(['1m', '5m', '30m', '1h', '2h', '4h', '12h', '24h'])('timeframe=%s is accepted and echoed', async (tf) => {
      const body = await history(`?timeframe=${tf}`);
      expect(body.timeframe).toBe(tf);
      const size = { '1m': 60, '5m': 300, '30m': 1800, '1h': 3600, '2h': 7200, '4h': 14400, '12h': 43200, '24h': 86400 }[tf]!;
      for (const s of body.data) expect(s.timestamp % size).toBe(0);
      expect(body.data.map((s: { timestamp: number }) => s.timestamp)).toEqual(
        [...body.data.map((s: { timestamp: number }) => s.timestamp)].sort((a, b) => a - b),
      );
    });

    it('start_time and end_time are inclusive and echoed', async () => {
      const body = await history(`?start_time=${H0 - 7200 + 3000}&end_time=${NOW}&timeframe=1m`);
      expect(body).toMatchObject({ start_time: H0 - 7200 + 3000, end_time: NOW });
      expect(body.data[0]).toEqual(point(H0 - 7200 + 3000, 'm2'));
      expect(body.data.at(-1)).toEqual(point(H0 + 120, 'm7'));
    });

    it('start_time defaults to end_time − 86400 (not below 0)', async () => {
      expect(await history(`?end_time=${H0 + 30}`)).toMatchObject({ start_time: H0 + 30 - DAY, end_time: H0 + 30 });
      expect(await history('?end_time=100')).toMatchObject({ start_time: 0, end_time: 100, data: [] });
      // m6 is older than 24 h before now, in range only with an explicit start.
      expect((await history(`?start_time=${NOW - DAY - 10}&timeframe=1m`)).data[0]).toEqual(point(Math.floor((NOW - DAY - 10) / 60) * 60, 'm6'));
    });

    it.each(['1m', '5m', '30m', '1h', '4h', '24h'])('timeframe=%s answers windows at and after 2^31 seconds (2038) like any other', async (tf) => {
      // Unaligned windows, so that every level of the plan (partial minutes included) is read, one request at a time.
      const start = 2 ** 31 - 7 * DAY + 17;
      for (const qs of [
        `?start_time=${start}&end_time=${2 ** 31 + 3 * 3600 + 41}`,
        `?start_time=${2 ** 31 + 1}&end_time=${2 ** 31 + 1}`,
        '?end_time=9999999999',
      ]) {
        const r = await h.get(url(`${qs}&timeframe=${tf}`));
        expect(r.status).toBe(200);
        expect(r.body.data).toEqual([]);
      }
      // A window from before it to after it still holds the pool's samples.
      expect((await history(`?start_time=${NOW - DAY}&end_time=${2 ** 31 + 59}&timeframe=24h`)).data).toEqual([point(D0, 'm7')]);
    });

    it("at most 100000 buckets, counted from the pool's first recorded hour", async () => {
      expect((await history('?start_time=0&timeframe=1h')).data).toHaveLength(3); // m6's hour, H0 − 2h, H0
      expect((await history('?start_time=0&timeframe=1m')).data).toHaveLength(6);
      const r = await h.get(url('?start_time=0&end_time=9999999999&timeframe=1m'));
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^The range holds \d+ buckets of timeframe 1m; at most 100000 are returned per request/);
    });
  });

  describe('raw', () => {
    const raw = (qs: string) => history(`?timeframe=raw${qs}`);

    it('every point newest first, next_cursor null when nothing older remains', async () => {
      const body = await raw('');
      expect(body).toMatchObject({ start_time: NOW - DAY, end_time: NOW, timeframe: 'raw', next_cursor: null });
      expect(body.data.map((p: { slot: number }) => p.slot)).toEqual((['m7', 'm5', 'm4b', 'm4a', 'm3c', 'm3b', 'm3a', 'm2', 'm1'] as MidKey[]).map(midSlot));
      expect(body.data[0]).toEqual({
        timestamp: NOW,
        slot: midSlot('m7'),
        midprice: midValue('m7'),
        base_spread_factor: spreadFactor,
        signature: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{64,90}$/),
      });
    });

    it('limit defaults to 200; a page ends on a whole second; next_cursor = oldest timestamp of the page', async () => {
      const body = await raw('&limit=3'); // m7, m5, m4b would split second H0+21
      expect(body.data.map((p: { slot: number }) => p.slot)).toEqual([midSlot('m7'), midSlot('m5')]);
      expect(body.next_cursor).toBe(H0 + 65);
    });

    it('walking next_cursor visits every point exactly once, even with several per second', async () => {
      for (const limit of [1, 2, 3, 4, 5, 1000]) {
        const seen: number[] = [];
        let cursor: number | null = null;
        for (let i = 0; i < 20; i++) {
          const body: { data: Array<{ slot: number }>; next_cursor: number | null } = await raw(`&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
          seen.push(...body.data.map((p) => p.slot));
          if (body.next_cursor === null) break;
          cursor = body.next_cursor;
        }
        expect({ limit, seen }).toEqual({ limit, seen: (['m7', 'm5', 'm4b', 'm4a', 'm3c', 'm3b', 'm3a', 'm2', 'm1'] as MidKey[]).map(midSlot) });
      }
    });

    it('one second holding more than limit points is returned whole', async () => {
      const body = await raw(`&limit=2&cursor=${H0 + 21}`);
      expect(body.data.map((p: { slot: number }) => p.slot)).toEqual([midSlot('m3c'), midSlot('m3b'), midSlot('m3a')]);
      expect(body.next_cursor).toBe(H0 + 20);
    });

    it('cursor returns records strictly before it', async () => {
      const body = await raw(`&cursor=${H0 + 21}`);
      expect(body.data[0].timestamp).toBe(H0 + 20);
      expect(await raw(`&cursor=${NOW - DAY}`)).toMatchObject({ data: [], next_cursor: null });
    });

    it('respects start_time/end_time', async () => {
      const body = await raw(`&start_time=${H0 + 20}&end_time=${H0 + 21}`);
      expect(body.data.map((p: { slot: number }) => p.slot)).toEqual((['m4b', 'm4a', 'm3c', 'm3b', 'm3a'] as MidKey[]).map(midSlot));
    });

    it('limit range 1..1000', async () => {
      expect((await raw('&limit=1000')).data).toHaveLength(9);
      for (const v of ['0', '1001', '-1', '2.5', 'x']) {
        expect(await h.get(url(`?timeframe=raw&limit=${v}`))).toMatchObject({
          status: 400,
          body: { message: 'limit must be an integer from 1 to 1000 (default 200)', error: 'Bad Request' },
        });
      }
    });
  });

  describe('errors', () => {
    it.each([['3m'], ['1H'], ['raw2'], [''], ['1d']])('timeframe=%p → 400 Invalid timeframe', async (v) => {
      expect(await h.get(url(`?timeframe=${v}`))).toMatchObject({ status: 400, body: { statusCode: 400, message: 'Invalid timeframe', error: 'Bad Request' } });
    });
    it.each([
      ['start_time', '-1'],
      ['start_time', '1.5'],
      ['start_time', 'yesterday'],
      ['end_time', '1764003725000'],
      ['end_time', ''],
      ['start_time', '1e9'],
      ['end_time', '0x10'],
    ])('%s=%p → 400 start_time and end_time must be valid unix timestamps in seconds', async (name, v) => {
      expect(await h.get(url(`?${name}=${v}`))).toMatchObject({
        status: 400,
        body: { statusCode: 400, message: 'start_time and end_time must be valid unix timestamps in seconds', error: 'Bad Request' },
      });
    });
    it.each([['-5'], ['1.2'], ['abc'], ['1764003725000'], ['']])('cursor=%p → 400 cursor must be a valid unix timestamp in seconds', async (v) => {
      expect(await h.get(url(`?timeframe=raw&cursor=${v}`))).toMatchObject({
        status: 400,
        body: { statusCode: 400, message: 'cursor must be a valid unix timestamp in seconds', error: 'Bad Request' },
      });
    });
    it('start_time after end_time → 400', async () => {
      expect(await h.get(url(`?start_time=${NOW}&end_time=${NOW - 1}`))).toMatchObject({
        status: 400,
        body: { message: 'start_time must be less than or equal to end_time' },
      });
    });
    it('unknown pool / other cluster → 404 Pool not found', async () => {
      expect(await h.get(url('', UNKNOWN_POOL))).toMatchObject({ status: 404, body: { message: 'Pool not found' } });
      expect(await h.get(url('?cluster=devnet'))).toMatchObject({ status: 404, body: { message: 'Pool not found' } });
      expect((await h.get(url('?cluster=devnet', POOL_D))).status).toBe(200);
      expect(await h.get(url('?cluster=beta'))).toMatchObject({ status: 400, body: { message: 'cluster must be one of: mainnet-beta, devnet' } });
    });
  });
});
