import { request as httpRequest } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { publishStatus } from '@hadron/platform/status/component-status';
import { DataFreshness } from '../../apps/api/src/freshness/data-freshness';
import { datasetEvents, NOW, POOL_A, POOL_B, POOL_D, QUOTER1 } from './support/dataset';
import { midpriceUpdated } from './support/events';
import { startApiHarness, type ApiHarness } from './support/harness';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(port: number, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(app: NestFastifyApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** The response cache's hit counter, as /metrics shows it. */
async function hits(port: number): Promise<number> {
  const m = /^hadron_api_response_cache_hits_total (\d+)/m.exec((await send(port, '/metrics')).body);
  return Number(m?.[1] ?? NaN);
}

/**
 * The response cache of the per-pool endpoints (README "Response cache"), over real listeners on a
 * database projected by the real projector: one API with the cache (the default), one without, so
 * every cached answer can be compared with what the same request gets uncached.
 */
describe('response cache', () => {
  let h: ApiHarness;
  let cached: number;
  let uncached: number;

  const publishIndexer = async (slot: number, time: number) => {
    await publishStatus(h.db.pool, 'indexer:mainnet-beta', 0n, { cursorSlot: slot, headSlot: slot, indexedBlockTime: time, lagSeconds: 1, backfillDone: true });
    for (const app of [h.app, ...apps]) await app.get(DataFreshness).refresh();
  };
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
    cached = await listen(h.app);
    const off = await h.startApp({ API_RESPONSE_CACHE_MAX_ENTRIES: '0' });
    apps.push(off);
    uncached = await listen(off);
    await publishIndexer(5_000, NOW - 2);
  });
  afterAll(async () => h?.close());

  it('a repeated query is answered from the cache until the projection advances; then the new data appears', async () => {
    const path = `/pools/${POOL_A}/midprice/history?timeframe=raw&start_time=${NOW - 3600}&end_time=${NOW + 3600}`;
    const first = await send(cached, path);
    expect(first.status).toBe(200);
    await send(cached, path); // kept now, if the first came before the cache's first position reading
    const before = await hits(cached);
    // A change the projection's position does not show (written behind the projector's back): an
    // answer from the cache cannot see it, an uncached one does. (Base58: midprice v7's points refuse any other signature.)
    await h.db.pool.query(`UPDATE read.midprice_points SET signature = 'editedBehindTheProjector' WHERE pool = $1`, [POOL_A]);
    const again = await send(cached, path);
    expect(again.body).toBe(first.body);
    expect(await hits(cached)).toBe(before + 1);
    expect((await send(uncached, path)).body).toContain('editedBehindTheProjector');

    // The projection advances: the next answer is made afresh, with the new point and the edit.
    await h.project([midpriceUpdated({ pool: POOL_A, blockTime: NOW + 60 }, 7n << 32n, 4_000_000_000n, QUOTER1)]);
    const after = await send(cached, path);
    expect(JSON.parse(after.body).data.length).toBe(JSON.parse(first.body).data.length + 1);
    expect(after.body).toContain('editedBehindTheProjector');
    expect(after.body).toBe((await send(uncached, path)).body);
  });

  it('never mixes pools, clusters or parameters: every answer, first and repeated, is what the uncached API answers', async () => {
    const paths = [
      `/pools/${POOL_A}`,
      `/pools/${POOL_A}?raw_amounts=string`,
      `/pools/${POOL_B}`,
      `/pools/${POOL_D}?cluster=devnet`,
      `/pools/${POOL_A}/fees`,
      `/pools/${POOL_A}/fees?interval=1h`,
      `/pools/${POOL_A}/fees?interval=all&raw_amounts=string`,
      `/pools/${POOL_B}/fees?interval=all`,
      `/pools/${POOL_D}/fees?cluster=devnet&interval=all`,
      `/pools/${POOL_A}/midprice/history`,
      `/pools/${POOL_A}/midprice/history?timeframe=1m&start_time=${NOW - 7200}`,
      `/pools/${POOL_A}/midprice/history?timeframe=raw&limit=2`,
      `/pools/${POOL_A}/midprice/history?limit=2&timeframe=raw`,
      `/pools/${POOL_A}/midprice/history?timeframe=raw&limit=2&cursor=${NOW - 100}`,
      `/pools/${POOL_B}/midprice/history?timeframe=raw`,
      `/pools/${POOL_A}/volume/history`,
      `/pools/${POOL_A}/volume/history?start_time=0&end_time=${NOW}`,
      `/pools/${POOL_D}/volume/history?cluster=devnet`,
    ];
    for (let round = 0; round < 2; round++) {
      for (const path of paths) {
        const [c, u] = [await send(cached, path), await send(uncached, path)];
        expect({ path, status: c.status, body: c.body }).toEqual({ path, status: u.status, body: u.body });
        for (const header of ['etag', 'cache-control', 'content-type', 'x-indexed-slot', 'last-modified'])
          expect([path, header, c.headers[header]]).toEqual([path, header, u.headers[header]]);
      }
    }
    // Errors are never kept: a 404 and a 400 stay what they are, also when asked again.
    for (const path of [`/pools/${POOL_A}/fees?interval=2h`, `/pools/${POOL_D}/fees`]) {
      expect((await send(cached, path)).status).toBe((await send(uncached, path)).status);
      expect((await send(cached, path)).status).toBeGreaterThanOrEqual(400);
    }
  });

  it('ETag / 304 and the freshness headers stay right on answers from the cache, and move with the indexer', async () => {
    const path = `/pools/${POOL_A}/fees?interval=24h`;
    const first = await send(cached, path);
    const repeated = await send(cached, path);
    expect(repeated.headers.etag).toBe(first.headers.etag);
    const revalidated = await send(cached, path, { 'if-none-match': String(first.headers.etag) });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBe('');
    expect(revalidated.headers['x-indexed-slot']).toBe('5000');
    // A body large enough to be compressed: the coded variant has its own tag, from the cache too.
    const history = `/pools/${POOL_A}/midprice/history?timeframe=raw&start_time=${NOW - 3600}&end_time=${NOW}`;
    const plain = await send(cached, history);
    for (let i = 0; i < 2; i++) {
      const br = await send(cached, history, { 'accept-encoding': 'br' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.etag).toBe(`${String(plain.headers.etag).slice(0, -1)}-br"`);
      expect((await send(cached, history, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })).status).toBe(304);
    }

    // The indexer moves on: `as_of` in the body and the headers follow at once (the entry is not reused).
    await publishIndexer(6_000, NOW - 1);
    const moved = await send(cached, path);
    expect(moved.headers['x-indexed-slot']).toBe('6000');
    expect(JSON.parse(moved.body).as_of.slot).toBe(6000);
    expect(moved.headers.etag).not.toBe(first.headers.etag);
    expect(moved.body).toBe((await send(uncached, path)).body);
    expect((await send(cached, path, { 'if-none-match': String(first.headers.etag) })).status).toBe(200);
  });
});
