import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runMigrations } from '@hadron/platform/database/migrate';
import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createLogger } from '@hadron/platform/logging/logger';
import { publishStatus } from '@hadron/platform/status/component-status';
import { createTestDatabase } from '@hadron/platform/testing/test-database';
import { projectorMigrations } from '../../apps/projector/src';
import { apiEnvSchema, createApiApp } from '../../apps/api/src';
import { PoolListSnapshot } from '../../apps/api/src/pools/pool-list/pool-list.snapshot';
import { READ_CONTRACT_SIZE } from '../../apps/api/src/health/read-contract';
import { datasetEvents, NOW, POOL_A } from './support/dataset';
import { errorShape, IN_PROCESS_API_ENV, inject, startApiHarness, type ApiHarness } from './support/harness';

/** DESIGN §5 error contract across endpoints; /health, /health/ready, /metrics, /docs. */
describe('errors, health, metrics, docs', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
  });
  afterAll(async () => h?.close());

  const endpoints = ['/pools', `/pools/${POOL_A}/fees`, `/pools/${POOL_A}/midprice/history`, `/pools/${POOL_A}/volume/history`];

  describe('the one error shape', () => {
    it.each(endpoints)('%s: an unknown query parameter is a 400 naming it and the allowed ones', async (path) => {
      const r = await h.get(`${path}?cluster=devnet&frobnicate=1`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        statusCode: 400,
        message: expect.stringMatching(/^Unknown query parameter 'frobnicate'; allowed: .*cluster/),
        error: 'Bad Request',
        code: 'unknown_parameter',
        parameter: 'frobnicate',
      });
    });

    it('several unknown parameters are all named', async () => {
      expect((await h.get('/pools?a=1&b=2')).body.message).toBe(
        "Unknown query parameters 'a', 'b'; allowed: page, page_size, query, authority, quoting_authority, token, token_x, token_y, pool_state, sort_by, cluster, raw_amounts",
      );
    });

    it.each(endpoints)('%s: a repeated parameter is a 400, not a 500', async (path) => {
      const r = await h.get(`${path}?cluster=devnet&cluster=devnet`);
      expect(r).toMatchObject({
        status: 400,
        body: {
          statusCode: 400,
          message: 'cluster must be one of: mainnet-beta, devnet',
          error: 'Bad Request',
          code: 'invalid_parameter',
          parameter: 'cluster',
        },
      });
    });

    it('message is always one string; no stack trace', async () => {
      for (const url of ['/pools?page=0&page_size=0&sort_by=x', `/pools/${POOL_A}/midprice/history?timeframe=x&start_time=y`, '/nope', '/pools/x/y/z']) {
        const r = await h.get(url);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.body).toEqual(errorShape(r.status, r.body));
        expect(
          Object.keys(r.body)
            .filter((k) => k !== 'parameter')
            .sort(),
        ).toEqual(['code', 'error', 'message', 'statusCode']);
        expect(typeof r.body.message).toBe('string');
        expect(r.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
      }
    });

    it('unknown routes are 404 and other methods 405, in the same shape', async () => {
      expect(await h.get('/pools/a/b/c')).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
      const post = await h.app.inject({ method: 'POST', url: '/pools' });
      expect(post.statusCode).toBe(405);
      expect(JSON.parse(post.body)).toMatchObject({ statusCode: 405, error: 'Method Not Allowed' });
    });

    it('malformed percent-encoding is never a 500', async () => {
      for (const url of ['/pools?query=%E0%A4%A', '/pools?%zz=1', '/pools/%ZZ/fees', '/pools/%E0%A4%A/fees', '/pools?cluster=%00']) {
        const r = await h.get(url);
        expect(r.status).toBeLessThan(500);
        if (r.status >= 400) expect(r.body).toEqual(errorShape(r.status, r.body));
      }
    });

    it('a database failure is logged server-side and answered 500 without details', async () => {
      // Without the response cache, whose position reading would otherwise be the first query to fail.
      const app = await h.startApp({ API_RESPONSE_CACHE_MAX_ENTRIES: '0' });
      const db = await import('../../apps/api/src/database/read-db');
      const spy = jest.spyOn(db.ReadDb.prototype, 'query').mockRejectedValueOnce(new Error('relation "read.swaps" does not exist at secret.ts:42'));
      const res = await app.inject({ method: 'GET', url: `/pools/${POOL_A}/fees` });
      spy.mockRestore();
      expect(res.statusCode).toBe(500);
      expect(JSON.parse(res.body)).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error', code: 'internal_error' });
    });
  });

  describe('/health', () => {
    it('liveness is 200 {status: ok}', async () => {
      expect(await h.get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    });

    it('readiness: 503 until the indexer and a projector published their status, then ready while every cluster is current and lags are small and fresh', async () => {
      const none = await h.get('/health/ready');
      expect(none).toMatchObject({
        status: 503,
        body: {
          status: 'not ready',
          detail: { database: 'ok', reasons: ['no indexer has published its status yet', 'no projector has published its status yet'] },
        },
      });

      const indexer = {
        cursorSlot: 900,
        indexedBlockTime: 1_764_000_000,
        headSlot: 5_000,
        slotLag: 4_100,
        lagSeconds: 1_640,
        rpcFailingSeconds: 0,
        backfillDone: false,
        ready: false,
      };
      await publishStatus(h.db.pool, 'indexer:mainnet-beta', 4_100n, indexer);
      for (const p of ['pools', 'swaps', 'midprice']) await publishStatus(h.db.pool, `projector:${p}`, 3n);
      const backfilling = await h.get('/health/ready');
      expect(backfilling).toMatchObject({
        status: 503,
        body: {
          detail: {
            reasons: ['indexer:mainnet-beta not ready: backfilling, 4100 slots (1640 s) behind the head'],
            clusters: [{ cluster: 'mainnet-beta', ready: false, indexed_slot: 900, head_slot: 5_000, lag_slots: 4_100, lag_seconds: 1_640 }],
          },
        },
      });
      await publishStatus(h.db.pool, 'indexer:mainnet-beta', 1n, { ...indexer, cursorSlot: 4_999, slotLag: 1, lagSeconds: 0, backfillDone: true, ready: true });
      const ready = await h.get('/health/ready');
      expect(ready).toMatchObject({ status: 200, body: { status: 'ready', detail: { database: 'ok', reasons: [], pool_list: { loaded: true, pools: 6 } } } });
      expect(ready.body.detail.projections).toHaveLength(3);

      await publishStatus(h.db.pool, 'projector:swaps', 1001n); // READY_MAX_LAG default 1000
      expect(await h.get('/health/ready')).toMatchObject({ status: 503, body: { detail: { reasons: ['projector:swaps lag 1001 > 1000'] } } });

      await publishStatus(h.db.pool, 'projector:swaps', 1000n);
      expect((await h.get('/health/ready')).status).toBe(200);

      await h.db.pool.query("UPDATE component_status SET updated_at = now() - interval '31 seconds' WHERE component = 'projector:midprice'");
      const stale = await h.get('/health/ready');
      expect(stale.status).toBe(503);
      expect(stale.body.detail.reasons[0]).toMatch(/^projector:midprice status is 31 s old \(> 30 s\)$/);
      await publishStatus(h.db.pool, 'projector:midprice', 0n);
      expect((await h.get('/health/ready')).status).toBe(200);
      // Components other than indexers and projectors do not count.
      await publishStatus(h.db.pool, 'something-else', 999_999n);
      expect((await h.get('/health/ready')).status).toBe(200);
    });

    it('readiness thresholds come from READY_MAX_LAG and READY_MAX_STALENESS_S', async () => {
      const app = await h.startApp({ READY_MAX_LAG: '2' });
      await publishStatus(h.db.pool, 'indexer:mainnet-beta', 0n, { backfillDone: true, slotLag: 0, ready: true });
      for (const p of ['pools', 'swaps', 'midprice']) await publishStatus(h.db.pool, `projector:${p}`, 3n);
      expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(503);
      expect((await h.get('/health/ready')).status).toBe(200);
    });

    it('readiness is 503 when the database does not answer', async () => {
      const app = await h.startApp();
      const db = await import('../../apps/api/src/database/read-db');
      const spy = jest.spyOn(db.ReadDb.prototype, 'query').mockRejectedValueOnce(new Error('connect ECONNREFUSED'));
      const res = await app.inject({ method: 'GET', url: '/health/ready' });
      spy.mockRestore();
      expect(res.statusCode).toBe(503);
      expect(JSON.parse(res.body)).toMatchObject({ status: 'not ready', detail: { database: 'unreachable' } });
    });
  });

  it('/metrics: Prometheus latency histogram by route and status', async () => {
    await h.get(`/pools/${POOL_A}/fees`);
    await h.get('/pools?page=0');
    const r = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body).toMatch(/hadron_api_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/pools\/:address\/fees",status_code="200"\} \d+/);
    expect(r.body).toMatch(/hadron_api_request_duration_seconds_count\{method="GET",route="\/pools",status_code="400"\} [1-9]/);
    expect(r.body).toMatch(/hadron_api_pool_list_pools 6/);
  });

  describe('OpenAPI', () => {
    it('/docs-json serves the document committed as apps/api/openapi.json', async () => {
      const r = await h.get('/docs-json');
      expect(r.status).toBe(200);
      expect(r.body).toEqual(JSON.parse(readFileSync(resolve(__dirname, '../../apps/api/openapi.json'), 'utf8')));
      expect(r.body.openapi).toMatch(/^3\./);
    });
    it('/docs serves Swagger UI and its assets', async () => {
      const page = await h.app.inject({ method: 'GET', url: '/docs' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/swagger-ui-init.js']) {
        expect((await h.app.inject({ method: 'GET', url: asset })).statusCode).toBe(200);
      }
      expect((await h.app.inject({ method: 'GET', url: '/docs/..%2Fpackage.json' })).statusCode).toBe(404);
    });
  });

  it('on a database the projector has not migrated to this release yet (a view without a column it reads): 503 unavailable, then serves', async () => {
    const app = await h.startApp({ API_RESPONSE_CACHE_MAX_ENTRIES: '0' });
    const url = `/pools/${POOL_A}/midprice/history?timeframe=5m`;
    expect((await inject(app, url)).status).toBe(200);
    // The five-minute view as the previous release left it: every column but `sample_json` (midprice v5's).
    const previousColumns =
      'cluster, pool, five_minute_start, ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32, midprice, base_spread_factor, point_id, tail';
    await h.db.pool.query(`ALTER VIEW read.midprice_five_minute RENAME TO midprice_five_minute_now;
      CREATE VIEW read.midprice_five_minute AS SELECT ${previousColumns} FROM read.midprice_five_minute_now`);
    const readiness = async () => {
      const r = await inject(app, '/health/ready');
      return { status: r.status, schemaReasons: (r.body.detail.reasons as string[]).filter((reason) => reason.startsWith('read schema')) };
    };
    try {
      expect(await inject(app, url)).toMatchObject({
        status: 503,
        body: { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable', code: 'unavailable' },
      });
      // Readiness says so, so that a rollout waits for the projector instead of sending traffic here.
      const ready = await readiness();
      expect(ready.status).toBe(503);
      expect(ready.schemaReasons).toEqual([
        `read schema not migrated to this release: 1 of ${READ_CONTRACT_SIZE} columns missing (read.midprice_five_minute.sample_json); upgrade the projector (its migrations) first`,
      ]);
    } finally {
      await h.db.pool.query(`DROP VIEW read.midprice_five_minute; ALTER VIEW read.midprice_five_minute_now RENAME TO midprice_five_minute`);
    }
    expect((await inject(app, url)).status).toBe(200);
    expect((await readiness()).schemaReasons).toEqual([]);
  });

  it('starts before the projector created the read schema: 503 until it exists, then serves', async () => {
    const db = await createTestDatabase([eventLogMigrations]);
    const app = await createApiApp({
      pool: db.pool,
      config: apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '60000', ...IN_PROCESS_API_ENV }),
      logger: createLogger('api-e2e', 'silent'),
      clock: () => NOW * 1000,
    });
    try {
      expect(await inject(app, '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
      const ready = await inject(app, '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.detail.reasons).toEqual([
        'pool list not loaded',
        'read schema not created yet: the projector has not run its migrations',
        'no indexer has published its status yet',
        'no projector has published its status yet',
      ]);
      for (const url of ['/pools', `/pools/${POOL_A}/fees`, `/pools/${POOL_A}/midprice/history`, `/pools/${POOL_A}/volume/history`]) {
        expect(await inject(app, url)).toMatchObject({ status: 503, body: { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable' } });
      }
      expect((await inject(app, '/pools?page=0')).status).toBe(400); // validation still comes first
      await runMigrations(db.url, [projectorMigrations]);
      await app.get(PoolListSnapshot).refresh();
      expect(await inject(app, '/pools')).toMatchObject({ status: 200, body: { total: 0, pages: 0, data: [] } });
      expect((await inject(app, '/health/ready')).body.detail.reasons).toEqual([
        'no indexer has published its status yet',
        'no projector has published its status yet',
      ]);
      expect((await inject(app, `/pools/${POOL_A}/fees`)).status).toBe(404);
    } finally {
      await app.close();
      await db.drop();
    }
  });
});
