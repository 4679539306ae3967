import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createHadronClient, readFreshness, type FeesReport, type HadronClient, type PoolListResponse, type StringAmounts } from '@hadron/client';
import { DAY, datasetEvents, NOW, POOL_A, POOL_B, POOL_D, U64_MAX, UNKNOWN_POOL } from './support/dataset';
import { publishCaughtUp, startApiHarness, waitFor, type ApiHarness } from './support/harness';

/**
 * libs/client against a running API (a real listener on loopback, over the projected dataset):
 * every documented endpoint called through the typed client answers what a plain fetch of the
 * hand-written URL answers, and errors come back typed. Whatever the document gets wrong about
 * paths, parameters or status codes shows here, since the client is generated from it.
 */
describe('typed client (libs/client) against a running API', () => {
  let h: ApiHarness;
  let base: string;
  let client: HadronClient;
  /** `METHOD path` of every documented operation this file called through the client. */
  const called = new Set<string>();
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
    await publishCaughtUp(h.db.pool);
    // The API picks the indexers' published progress up on its own schedule: answers agree once it has.
    await waitFor(async () => (await h.get('/pools')).body?.as_of?.slot !== null, 10_000, "the API to read the indexers' progress");
    await h.app.listen(0, '127.0.0.1');
    const a = h.app.getHttpServer().address();
    base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    client = createHadronClient(base);
    client.use({ onRequest: ({ schemaPath, request }) => void called.add(`${request.method} ${schemaPath}`) });
  });
  afterAll(async () => h?.close());

  /** What a client without the library sees at `url`. */
  const plain = async (url: string) => {
    const r = await fetch(base + url);
    return { status: r.status, body: (await r.json()) as any };
  };

  /** Ages (`*age_s`) move between two requests: any number matches. */
  const ageless = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(ageless)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, /age_s$/.test(k) && typeof v === 'number' ? expect.any(Number) : ageless(v)]))
        : value;

  describe('every endpoint answers as a plain fetch of the same URL does', () => {
    it('GET /pools with filters, sorting and paging', async () => {
      const { data, error, response } = await client.GET('/pools', {
        params: { query: { cluster: 'mainnet-beta', sort_by: 'tvl:desc', page: 2, page_size: 2 } },
      });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual((await plain('/pools?cluster=mainnet-beta&sort_by=tvl%3Adesc&page=2&page_size=2')).body);
      expect(data!.current_page).toBe(2);
      const names: string[] = data!.data.map((p) => p.name); // typed: a compile error if the shape drifts
      expect(names).toHaveLength(2);
    });

    it('GET /pools on devnet, searched', async () => {
      const { data } = await client.GET('/pools', { params: { query: { cluster: 'devnet', query: 'WIF' } } });
      expect(data).toEqual((await plain('/pools?cluster=devnet&query=WIF')).body);
      expect(data!.data.map((p) => p.address)).toEqual([POOL_D]);
    });

    it('GET /pools/{address}: the item of GET /pools for that address', async () => {
      const { data, error, response } = await client.GET('/pools/{address}', { params: { path: { address: POOL_D }, query: { cluster: 'devnet' } } });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data).toEqual((await plain(`/pools/${POOL_D}?cluster=devnet`)).body);
      expect(data).toEqual((await plain(`/pools?cluster=devnet&query=${POOL_D}`)).body.data[0]);
    });

    it('GET /pools/{address}/fees', async () => {
      const { data, response } = await client.GET('/pools/{address}/fees', { params: { path: { address: POOL_A }, query: { interval: '7d' } } });
      expect(response.status).toBe(200);
      expect(data).toEqual((await plain(`/pools/${POOL_A}/fees?interval=7d`)).body);
      expect(data!.totals.swap_count).toBeGreaterThan(0);
    });

    it('GET /pools/{address}/midprice/history, sampled', async () => {
      const query = { timeframe: '1h', start_time: NOW - 2 * DAY, end_time: NOW } as const;
      const { data } = await client.GET('/pools/{address}/midprice/history', { params: { path: { address: POOL_A }, query } });
      expect(data).toEqual((await plain(`/pools/${POOL_A}/midprice/history?timeframe=1h&start_time=${NOW - 2 * DAY}&end_time=${NOW}`)).body);
      expect(data!.data.length).toBeGreaterThan(0);
    });

    it('GET /pools/{address}/midprice/history, raw pages followed by next_cursor', async () => {
      const pages: unknown[] = [];
      let cursor: number | undefined;
      do {
        const query = { timeframe: 'raw', start_time: 0, end_time: NOW, limit: 2, ...(cursor === undefined ? {} : { cursor }) } as const;
        const { data } = await client.GET('/pools/{address}/midprice/history', { params: { path: { address: POOL_A }, query } });
        const url = `/pools/${POOL_A}/midprice/history?timeframe=raw&start_time=0&end_time=${NOW}&limit=2${cursor === undefined ? '' : `&cursor=${cursor}`}`;
        expect(data).toEqual((await plain(url)).body);
        pages.push(...data!.data);
        cursor = data!.next_cursor ?? undefined;
      } while (cursor !== undefined && pages.length < 1000);
      expect(pages.length).toBeGreaterThan(2); // more than one page was followed
    });

    it('GET /pools/{address}/volume/history', async () => {
      const { data } = await client.GET('/pools/{address}/volume/history', {
        params: { path: { address: POOL_A }, query: { timeframe: '24h', start_time: NOW - 7 * DAY, end_time: NOW } },
      });
      expect(data).toEqual((await plain(`/pools/${POOL_A}/volume/history?timeframe=24h&start_time=${NOW - 7 * DAY}&end_time=${NOW}`)).body);
      expect(data!.data.length).toBeGreaterThan(0);
    });

    it('GET /health and GET /health/ready', async () => {
      const live = await client.GET('/health');
      expect(live.data).toEqual((await plain('/health')).body);
      const ready = await client.GET('/health/ready');
      expect(ready.response.status).toBe(200);
      expect(ready.data!.status).toBe('ready');
      expect(ready.data).toEqual(ageless((await plain('/health/ready')).body));
    });

    it('GET /metrics as text', async () => {
      const { data, response } = await client.GET('/metrics', { parseAs: 'text' });
      expect(response.status).toBe(200);
      expect(data).toContain('hadron_api_request_duration_seconds');
    });
  });

  describe('raw amounts', () => {
    it('a u64 vault balance is a JSON integer: the client parses it as a number, losing digits past 2^53 as plain JSON.parse does', async () => {
      const { data } = await client.GET('/pools', { params: { query: { query: POOL_B } } });
      expect(data!.data[0].token_x_amount).toBe(Number(18_446_744_073_709_551_615n));
      expect(Number.isSafeInteger(data!.data[0].token_x_amount)).toBe(false);
    });

    it('with raw_amounts: string every raw amount is a decimal string with exact digits (StringAmounts<T>)', async () => {
      const list = await client.GET('/pools', { params: { query: { query: POOL_B, raw_amounts: 'string' } } });
      const pool = (list.data as StringAmounts<PoolListResponse> | undefined)!.data[0];
      expect(pool.token_x_amount).toBe(U64_MAX.toString());
      expect(BigInt(pool.token_x_amount)).toBe(U64_MAX);
      const one = await client.GET('/pools/{address}', { params: { path: { address: POOL_B }, query: { raw_amounts: 'string' } } });
      expect(one.data).toEqual(pool);
      const fees = await client.GET('/pools/{address}/fees', { params: { path: { address: POOL_A }, query: { interval: 'all', raw_amounts: 'string' } } });
      const totals = (fees.data as StringAmounts<FeesReport> | undefined)!.totals;
      expect(fees.data).toEqual((await plain(`/pools/${POOL_A}/fees?interval=all&raw_amounts=string`)).body);
      expect([typeof totals.protocol_fee_x_raw, typeof totals.protocol_fee_y_raw]).toEqual(['string', 'string']);
    });
  });

  describe('errors come back typed', () => {
    it('an unknown pool is a 404 error body, data undefined', async () => {
      const { data, error, response } = await client.GET('/pools/{address}/fees', { params: { path: { address: UNKNOWN_POOL } } });
      expect(data).toBeUndefined();
      expect(response.status).toBe(404);
      expect(error).toEqual((await plain(`/pools/${UNKNOWN_POOL}/fees`)).body);
      expect(error!.statusCode).toBe(404);
      expect(error!.message).toBe('Pool not found');
      expect(error!.code).toBe('pool_not_found');
    });

    it('an unknown pool is a 404 on GET /pools/{address} too', async () => {
      const { data, error, response } = await client.GET('/pools/{address}', { params: { path: { address: UNKNOWN_POOL } } });
      expect([data, response.status]).toEqual([undefined, 404]);
      expect(error).toEqual((await plain(`/pools/${UNKNOWN_POOL}`)).body);
      expect(error!.code).toBe('pool_not_found');
    });

    it('a malformed address is a 400 naming the rule', async () => {
      const { error, response } = await client.GET('/pools/{address}/volume/history', { params: { path: { address: 'not-base58!' } } });
      expect(response.status).toBe(400);
      expect(error).toEqual((await plain('/pools/not-base58!/volume/history')).body);
      expect(error).toMatchObject({ error: 'Bad Request', code: 'invalid_parameter', parameter: 'address' });
    });

    it('a timeframe outside the documented ones (what an untyped caller can send) is a 400', async () => {
      const timeframe = '7m' as unknown as '1m';
      const { data, error, response } = await client.GET('/pools/{address}/midprice/history', { params: { path: { address: POOL_A }, query: { timeframe } } });
      expect(data).toBeUndefined();
      expect(response.status).toBe(400);
      expect(error).toEqual((await plain(`/pools/${POOL_A}/midprice/history?timeframe=7m`)).body);
      expect(error!.message).toMatch(/timeframe/);
      expect(error).toMatchObject({ code: 'invalid_parameter', parameter: 'timeframe' });
    });
  });

  describe('freshness headers', () => {
    it('readFreshness gives what the body says in as_of, on the list and the fees report', async () => {
      const list = await client.GET('/pools');
      expect(list.data!.as_of.slot).not.toBeNull();
      expect(readFreshness(list.response)).toEqual({ slot: list.data!.as_of.slot, time: list.data!.as_of.time, lagSeconds: list.data!.as_of.lag_seconds });
      const fees = await client.GET('/pools/{address}/fees', { params: { path: { address: POOL_A } } });
      expect(readFreshness(fees.response)).toEqual({ slot: fees.data!.as_of.slot, time: fees.data!.as_of.time, lagSeconds: fees.data!.as_of.lag_seconds });
    });

    it('a conditional request the API answers 304 comes back with neither data nor an error to handle', async () => {
      const first = await client.GET('/pools/{address}', { params: { path: { address: POOL_A } } });
      const etag = first.response.headers.get('etag');
      expect(etag).toBeTruthy();
      const again = await client.GET('/pools/{address}', { params: { path: { address: POOL_A } }, headers: { 'If-None-Match': etag! } });
      expect(again.response.status).toBe(304);
      expect(again.data).toBeUndefined();
      expect(again.error).toBeFalsy();
    });
  });

  describe('coverage (runs last)', () => {
    it('every operation of the committed OpenAPI document was called through the client above', () => {
      const document = JSON.parse(readFileSync(resolve(__dirname, '../../apps/api/openapi.json'), 'utf8')) as {
        paths: Record<string, Record<string, unknown>>;
      };
      const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));
      expect(documented.filter((op) => !called.has(op))).toEqual([]);
    });
  });
});
