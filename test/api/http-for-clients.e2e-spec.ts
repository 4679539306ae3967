import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PostgresEventLogProducer } from '@hadron/platform/event-log/postgres/postgres-event-log';
import { publishStatus } from '@hadron/platform/status/component-status';
import { DataFreshness } from '../../apps/api/src/freshness/data-freshness';
import { PoolListSnapshot } from '../../apps/api/src/pools/pool-list/pool-list.snapshot';
import { AUTH1, BONK, datasetEvents, FEES_A, NOW, POOL_A, POOL_B, POOL_D, QUOTER1, SPLIT_A_24H, UNKNOWN_POOL, USDC } from './support/dataset';
import { addr, midpriceUpdated, poolDiscovered } from './support/events';
import { startApiHarness, waitFor, type ApiHarness } from './support/harness';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request over a real socket, the body as sent (no decoding: the test checks the coding itself). */
function send(port: number, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (r: Raw) => JSON.parse(r.body.toString('utf8'));

async function listen(app: NestFastifyApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** What a cluster's active indexer publishes (component_status `indexer:<cluster>`), as the real one does. */
async function publishIndexer(h: ApiHarness, cluster: string, slot: number, time: number, lagSeconds: number, backfillDone = true): Promise<void> {
  await publishStatus(h.db.pool, `indexer:${cluster}`, 0n, {
    cursorSlot: slot,
    headSlot: slot,
    slotLag: 0,
    indexedBlockTime: time,
    lagSeconds,
    rpcFailingSeconds: 0,
    backfillDone,
    ready: true,
  });
  for (const app of [h.app]) await app.get(DataFreshness).refresh();
}

/**
 * Issue 16 "HTTP for real clients": CORS, br/gzip, ETag + 304, Cache-Control, freshness headers and
 * `as_of`, GET /pools/{address}, error codes and parameters, raw amounts as strings — over a real
 * listener, as a browser or an HTTP client sees them.
 */
describe('HTTP for clients', () => {
  let h: ApiHarness;
  let port: number;
  const perPool = [`/pools/${POOL_A}/fees`, `/pools/${POOL_A}/midprice/history`, `/pools/${POOL_A}/volume/history`, `/pools/${POOL_A}`];

  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
    await publishIndexer(h, 'mainnet-beta', 5_000, NOW - 2, 1.5);
    await publishIndexer(h, 'devnet', 777, NOW - 30, 12);
    port = await listen(h.app);
  });
  afterAll(async () => h?.close());

  describe('CORS (default: any origin)', () => {
    it('a preflight from a web page is answered 204 with the allowed methods, on every data path', async () => {
      for (const path of ['/pools', ...perPool]) {
        const r = await send(
          port,
          path,
          { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
          'OPTIONS',
        );
        expect(r.status).toBe(204);
        expect(r.headers['access-control-allow-origin']).toBe('*');
        expect(r.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
        expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toContain('if-none-match');
        expect(Number(r.headers['access-control-max-age'])).toBeGreaterThan(0);
        expect(r.body.length).toBe(0);
      }
    });

    it('simple requests, and errors, carry Access-Control-Allow-Origin and expose the freshness headers and ETag', async () => {
      for (const path of ['/pools', ...perPool, `/pools/${UNKNOWN_POOL}/fees`, '/pools?cluster=localnet']) {
        const r = await send(port, path, { origin: 'https://app.example.com' });
        expect(r.headers['access-control-allow-origin']).toBe('*');
        const exposed = String(r.headers['access-control-expose-headers']).split(', ');
        expect(exposed).toEqual(expect.arrayContaining(['ETag', 'X-Indexed-Slot', 'X-Indexed-Time', 'X-Data-Lag-Seconds', 'Retry-After']));
      }
    });

    it('API_CORS_ORIGINS=<list>: only those origins are allowed (and Vary: Origin); none turns CORS off', async () => {
      const listed = await h.startApp({ API_CORS_ORIGINS: 'https://app.example.com, https://other.example.org' });
      const listedPort = await listen(listed);
      const ok = await send(listedPort, '/pools', { origin: 'https://other.example.org' });
      expect(ok.headers['access-control-allow-origin']).toBe('https://other.example.org');
      expect(String(ok.headers.vary).toLowerCase()).toContain('origin');
      const foreign = await send(listedPort, '/pools', { origin: 'https://evil.example.net' });
      expect(foreign.status).toBe(200);
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();

      const off = await h.startApp({ API_CORS_ORIGINS: 'none' });
      const offPort = await listen(off);
      expect((await send(offPort, '/pools', { origin: 'https://app.example.com' })).headers['access-control-allow-origin']).toBeUndefined();
      const options = await send(offPort, '/pools', { origin: 'https://app.example.com', 'access-control-request-method': 'GET' }, 'OPTIONS');
      expect(options.status).toBe(204);
      expect(options.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(options.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('compression', () => {
    it('br and gzip are negotiated from Accept-Encoding; the decoded body is the plain one', async () => {
      const plain = await send(port, '/pools');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(1024);
      const br = await send(port, '/pools', { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(String(br.headers.vary).toLowerCase()).toContain('accept-encoding');
      expect(br.body.length).toBeLessThan(plain.body.length / 2);
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      const gzip = await send(port, '/pools', { 'accept-encoding': 'gzip' });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
    });

    it('small bodies (under API_COMPRESS_MIN_BYTES) are sent as they are', async () => {
      const r = await send(port, `/pools/${UNKNOWN_POOL}/fees`, { 'accept-encoding': 'br, gzip' });
      expect(r.status).toBe(404);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(json(r)).toMatchObject({ statusCode: 404, code: 'pool_not_found' });
    });
  });

  describe('ETag and 304', () => {
    it('every data response has a strong ETag; If-None-Match with it is 304 without a body, with the current freshness', async () => {
      for (const path of ['/pools', '/pools?cluster=devnet', ...perPool]) {
        const first = await send(port, path);
        expect(first.status).toBe(200);
        const tag = String(first.headers.etag);
        expect(tag).toMatch(/^"[0-9a-f]{32}"$/);
        const again = await send(port, path, { 'if-none-match': tag });
        expect(again.status).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(tag);
        expect(again.headers['x-indexed-slot']).toBe(first.headers['x-indexed-slot']);
        // Weak comparison (RFC 9110): a W/ form, or the tag inside a list, matches too.
        expect((await send(port, path, { 'if-none-match': `W/${tag}` })).status).toBe(304);
        expect((await send(port, path, { 'if-none-match': `"nope", ${tag}` })).status).toBe(304);
        expect((await send(port, path, { 'if-none-match': '"0123456789abcdef0123456789abcdef"' })).status).toBe(200);
      }
    });

    it('a compressed body has its own tag (-br / -gzip); either form revalidates, and the 304 echoes the one held', async () => {
      const br = await send(port, '/pools', { 'accept-encoding': 'br' });
      const plain = await send(port, '/pools');
      expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
      const revalidated = await send(port, '/pools', { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.etag).toBe(br.headers.etag);
      expect(revalidated.headers['content-encoding']).toBeUndefined();
    });

    it('the tag changes when the data does: the old tag then gets 200 and the new body', async () => {
      const path = `/pools/${POOL_A}/midprice/history?timeframe=raw&start_time=${NOW - 60}&end_time=${NOW + 60}`;
      const before = await send(port, path);
      await h.project([midpriceUpdated({ pool: POOL_A, blockTime: NOW + 30 }, 9n << 32n, 4_000_000_000n, QUOTER1)]);
      const after = await send(port, path, { 'if-none-match': String(before.headers.etag) });
      expect(after.status).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(json(after).data.length).toBe(json(before).data.length + 1);
    });

    it('errors are never 304 and never cached', async () => {
      const r = await send(port, '/pools?cluster=localnet', { 'if-none-match': '*' });
      expect(r.status).toBe(400);
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers.etag).toBeUndefined();
      expect((await send(port, '/health')).headers['cache-control']).toBe('no-store');
    });
  });

  describe('Cache-Control and Last-Modified', () => {
    it('live data: max-age=1; Last-Modified is the newest indexed block time', async () => {
      for (const path of ['/pools', ...perPool]) {
        const r = await send(port, path);
        expect(r.headers['cache-control']).toBe('public, max-age=1');
        expect(r.headers['last-modified']).toBe(new Date((NOW - 2) * 1000).toUTCString());
      }
    });

    it('a history window that closed before the indexed time: max-age=300; one still open, or before backfill is done: live', async () => {
      const closed = `start_time=${NOW - 3 * 86_400}&end_time=${NOW - 2 * 86_400}`;
      expect((await send(port, `/pools/${POOL_A}/volume/history?${closed}`)).headers['cache-control']).toBe('public, max-age=300');
      expect((await send(port, `/pools/${POOL_A}/midprice/history?${closed}`)).headers['cache-control']).toBe('public, max-age=300');
      // A raw page below a cursor long past is closed too.
      expect((await send(port, `/pools/${POOL_A}/midprice/history?timeframe=raw&cursor=${NOW - 7200}`)).headers['cache-control']).toBe('public, max-age=300');
      expect((await send(port, `/pools/${POOL_A}/volume/history?start_time=${NOW - 86_400}&end_time=${NOW - 10}`)).headers['cache-control']).toBe(
        'public, max-age=1',
      );
      await publishIndexer(h, 'mainnet-beta', 5_000, NOW - 2, 1.5, false);
      try {
        expect((await send(port, `/pools/${POOL_A}/volume/history?${closed}`)).headers['cache-control']).toBe('public, max-age=1');
      } finally {
        await publishIndexer(h, 'mainnet-beta', 5_000, NOW - 2, 1.5);
      }
    });
  });

  describe('freshness', () => {
    it('every data response says, for its cluster, the indexed slot, its block time and the lag; as_of says the same', async () => {
      for (const [cluster, slot, time, lag] of [
        ['mainnet-beta', 5_000, NOW - 2, 1.5],
        ['devnet', 777, NOW - 30, 12],
      ] as const) {
        for (const path of [
          '/pools',
          `/pools/${cluster === 'devnet' ? POOL_D : POOL_A}/fees`,
          `/pools/${cluster === 'devnet' ? POOL_D : POOL_A}/volume/history`,
        ]) {
          const r = await send(port, `${path}?cluster=${cluster}`);
          expect(r.status).toBe(200);
          expect(r.headers).toMatchObject({ 'x-indexed-slot': String(slot), 'x-indexed-time': String(time), 'x-data-lag-seconds': String(lag) });
        }
        expect(json(await send(port, `/pools?cluster=${cluster}`)).as_of).toEqual({ slot, time, lag_seconds: lag });
      }
      expect(json(await send(port, `/pools/${POOL_A}/fees`)).as_of).toEqual({ slot: 5_000, time: NOW - 2, lag_seconds: 1.5 });
    });

    it('the headers move as the indexer advances (within the refresh period, without a request to refresh)', async () => {
      await publishStatus(h.db.pool, 'indexer:mainnet-beta', 0n, {
        cursorSlot: 6_200,
        headSlot: 6_200,
        slotLag: 0,
        indexedBlockTime: NOW - 1,
        lagSeconds: 0,
        rpcFailingSeconds: 0,
        backfillDone: true,
        ready: true,
      });
      await waitFor(async () => (await send(port, '/pools')).headers['x-indexed-slot'] === '6200', 5_000, 'X-Indexed-Slot to move to 6200');
      const r = await send(port, '/pools');
      expect(r.headers).toMatchObject({ 'x-indexed-time': String(NOW - 1), 'x-data-lag-seconds': '0' });
      expect(json(r).as_of).toEqual({ slot: 6_200, time: NOW - 1, lag_seconds: 0 });
    });

    it('nothing published for a cluster: no freshness headers, as_of all null', async () => {
      await h.db.pool.query(`DELETE FROM component_status WHERE component = 'indexer:devnet'`);
      await h.app.get(DataFreshness).refresh();
      try {
        const r = await send(port, '/pools?cluster=devnet');
        expect(r.headers['x-indexed-slot']).toBeUndefined();
        expect(r.headers['last-modified']).toBeUndefined();
        expect(json(r).as_of).toEqual({ slot: null, time: null, lag_seconds: null });
      } finally {
        await publishIndexer(h, 'devnet', 777, NOW - 30, 12);
      }
    });
  });

  describe('GET /pools/{address}', () => {
    it('is the same object as the pool list item, byte for byte', async () => {
      for (const [pool, cluster] of [
        [POOL_A, 'mainnet-beta'],
        [POOL_B, 'mainnet-beta'],
        [POOL_D, 'devnet'],
      ] as const) {
        const list = (await send(port, `/pools?cluster=${cluster}&query=${pool}`)).body.toString();
        const one = await send(port, `/pools/${pool}?cluster=${cluster}`);
        expect(one.status).toBe(200);
        expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(list).toContain(`"data":[${one.body.toString()}]`);
      }
    });

    it('unknown pool 404 (pool_not_found), a pool of the other cluster too; a bad address 400 naming it', async () => {
      expect(json(await send(port, `/pools/${UNKNOWN_POOL}`))).toEqual({
        statusCode: 404,
        message: 'Pool not found',
        error: 'Not Found',
        code: 'pool_not_found',
        parameter: 'address',
      });
      expect((await send(port, `/pools/${POOL_D}`)).status).toBe(404);
      expect(json(await send(port, '/pools/not-a-pool'))).toMatchObject({ statusCode: 400, code: 'invalid_parameter', parameter: 'address' });
    });

    it('a pool discovered after the last snapshot is found at once (read from the database)', async () => {
      const fresh = await h.startApp({ POOL_LIST_REFRESH_MS: '600000' }); // its snapshot will not reload by itself
      const freshPort = await listen(fresh);
      const pool = addr('pool:late');
      // Appended to the log and projected, without telling the app (h.project would refresh its snapshot).
      await new PostgresEventLogProducer(h.db.pool).append([
        poolDiscovered(
          { pool, blockTime: NOW - 5 },
          {
            tokenX: BONK,
            tokenY: USDC,
            authority: AUTH1,
            quotingAuthority: QUOTER1,
            poolState: 'Initialized',
            midpriceQ32: 1n << 32n,
            spreadFactorQ32: 4_000_000_000n,
          },
        ),
      ]);
      await waitFor(
        async () => (await h.db.pool.query('SELECT 1 FROM read.pools WHERE address = $1', [pool])).rowCount === 1,
        20_000,
        'the new pool to be projected',
      );
      expect(fresh.get(PoolListSnapshot).find('mainnet-beta', pool)).toBeUndefined();
      const one = await send(freshPort, `/pools/${pool}`);
      expect(one.status).toBe(200);
      expect(json(one)).toMatchObject({ address: pool, name: 'BONK/USDC', pool_config: { pool_state: 'Initialized' } });
    });
  });

  describe('errors for programs: code and parameter', () => {
    it.each([
      ['/pools?cluster=localnet', 400, 'invalid_parameter', 'cluster'],
      ['/pools?page=0', 400, 'invalid_parameter', 'page'],
      ['/pools?sort_by=name', 400, 'invalid_parameter', 'sort_by'],
      ['/pools?frobnicate=1', 400, 'unknown_parameter', 'frobnicate'],
      [`/pools/${POOL_A}/fees?interval=2h`, 400, 'invalid_parameter', 'interval'],
      [`/pools/${POOL_A}/midprice/history?timeframe=3m`, 400, 'invalid_parameter', 'timeframe'],
      [`/pools/${POOL_A}/midprice/history?end_time=abc`, 400, 'invalid_parameter', 'end_time'],
      [`/pools/${POOL_A}/midprice/history?timeframe=raw&cursor=-1`, 400, 'invalid_parameter', 'cursor'],
      [`/pools/${POOL_A}/midprice/history?start_time=${NOW}&end_time=${NOW - 1}`, 400, 'invalid_parameter', 'start_time'],
      [`/pools/${POOL_A}/volume/history?timeframe=1h`, 400, 'invalid_parameter', 'timeframe'],
      [`/pools/${UNKNOWN_POOL}/volume/history`, 404, 'pool_not_found', 'address'],
      ['/nope', 404, 'not_found', undefined],
    ])('%s → %i %s (%s)', async (path, status, code, parameter) => {
      const body = json(await send(port, path));
      expect(body).toEqual({ statusCode: status, message: expect.any(String), error: expect.any(String), code, ...(parameter ? { parameter } : {}) });
    });

    it('the spec messages stay verbatim', async () => {
      expect(json(await send(port, `/pools/${POOL_A}/midprice/history?timeframe=3m`)).message).toBe('Invalid timeframe');
      expect(json(await send(port, `/pools/${POOL_A}/volume/history?timeframe=1h`)).message).toBe('Only 24h timeframe is supported for volume history in v1');
    });

    it('other methods: 405 with Allow and code method_not_allowed', async () => {
      const r = await send(port, '/pools', {}, 'POST');
      expect(r.status).toBe(405);
      expect(r.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(json(r)).toMatchObject({ statusCode: 405, code: 'method_not_allowed' });
    });
  });

  describe('raw_amounts=string', () => {
    it('the pool list and a pool: vault balances as decimal strings with the same digits (u64 max stays exact)', async () => {
      const asNumbers = (await send(port, `/pools/${POOL_B}`)).body.toString();
      const asStrings = await send(port, `/pools/${POOL_B}?raw_amounts=string`);
      const item = json(asStrings);
      expect(item.token_x_amount).toBe('18446744073709551615');
      expect(asNumbers).toContain('"token_x_amount":18446744073709551615');
      expect(asStrings.body.toString().replace(/"token_(x|y)_amount":"([0-9]+)"/g, '"token_$1_amount":$2')).toBe(asNumbers);
      const list = json(await send(port, '/pools?raw_amounts=string'));
      expect(
        list.data.every(
          (p: { token_x_amount: unknown; token_y_amount: unknown }) => typeof p.token_x_amount === 'string' && typeof p.token_y_amount === 'string',
        ),
      ).toBe(true);
    });

    it('fees: protocol fees and recipient shares as exact decimal strings', async () => {
      const body = json(await send(port, `/pools/${POOL_A}/fees?raw_amounts=string`));
      expect(body.totals).toEqual({
        ...FEES_A['24h'],
        protocol_fee_x_raw: String(FEES_A['24h'].protocol_fee_x_raw),
        protocol_fee_y_raw: String(FEES_A['24h'].protocol_fee_y_raw),
      });
      expect(body.protocol_fee_split).toEqual(SPLIT_A_24H.map((s) => ({ ...s, fee_x_raw: String(s.fee_x_raw), fee_y_raw: String(s.fee_y_raw) })));
    });

    it('anything else is a 400 naming raw_amounts', async () => {
      expect(json(await send(port, '/pools?raw_amounts=bigint'))).toMatchObject({ statusCode: 400, code: 'invalid_parameter', parameter: 'raw_amounts' });
    });
  });
});
