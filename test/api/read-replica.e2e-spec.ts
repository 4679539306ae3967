import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Pool } from 'pg';
import { withClient } from '@hadron/platform/database/admin';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@hadron/platform/database/embedded-postgres';
import { createPool, endPool } from '@hadron/platform/database/pool';
import { createLogger } from '@hadron/platform/logging/logger';
import { freePort } from '@hadron/platform/testing/free-port';
import { startStreamingReplica, type StreamingReplica } from '@hadron/platform/testing/streaming-replica';
import { apiEnvSchema, createApiApp } from '../../apps/api/src';
import { AUTH2, datasetEvents, NOW, POOL_A, UNKNOWN_POOL, USDC, WIF } from './support/dataset';
import { addr, poolDiscovered } from './support/events';
import { startEntry } from '../pipeline/support/app-process';
import { IN_PROCESS_API_ENV, inject, publishCaughtUp, startApiHarness, waitFor, type ApiHarness } from './support/harness';
import { DataFreshness } from '../../apps/api/src/freshness/data-freshness';

/**
 * DATABASE_READ_URL: the API reading a real hot-standby streaming replica of the primary the
 * projector writes. Same answers as the primary once replayed; readiness tells the replica's
 * replay position, and while replay is paused the API serves the replica's (older) data and its
 * readiness reports the lag, 503 past READY_MAX_REPLICA_LAG_S.
 */
describe('API on a streaming read replica', () => {
  let base: string;
  let primary: EmbeddedPostgres;
  let replica: StreamingReplica;
  let h: ApiHarness;
  let replicaPool: Pool;
  const apps: NestFastifyApplication[] = [];
  const log = createLogger('replica-e2e', process.env.E2E_LOG_LEVEL ?? 'silent');
  const replicaApp = async (env: Record<string, string> = {}) => {
    const app = await createApiApp({
      pool: replicaPool,
      config: apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '100', ...IN_PROCESS_API_ENV, ...env }),
      logger: log,
      clock: () => NOW * 1000,
    });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'hadron-primary-'));
    chmodSync(base, 0o711); // the postgres OS user (when we are root) enters it
    primary = await startEmbeddedPostgres({ dataDir: join(base, 'data'), port: await freePort(), database: 'postgres', log });
    replica = await startStreamingReplica({ primaryUrl: primary.url });
    h = await startApiHarness({ now: NOW, events: datasetEvents(), adminUrl: primary.url });
    await publishCaughtUp(h.db.pool);
    await replica.catchUp();
    replicaPool = createPool(replica.urlFor(new URL(h.db.url).pathname.slice(1)), { max: 5, application: 'replica-e2e' });
  }, 120_000);
  afterAll(async () => {
    for (const a of apps) await a.close();
    if (replicaPool) await endPool(replicaPool);
    await h?.close();
    await replica?.stop();
    await primary?.stop();
    rmSync(base, { recursive: true, force: true });
  }, 60_000);

  const urls = [
    '/pools',
    '/pools?cluster=devnet',
    `/pools?query=${POOL_A}`,
    `/pools/${POOL_A}/fees?interval=24h`,
    `/pools/${POOL_A}/fees?interval=all`,
    `/pools/${POOL_A}/midprice/history?timeframe=raw`,
    `/pools/${POOL_A}/midprice/history?timeframe=1h`,
    `/pools/${POOL_A}/volume/history`,
    `/pools/${UNKNOWN_POOL}/fees`, // the same 404
  ];

  it('answers every endpoint exactly as the primary does', async () => {
    const app = await replicaApp();
    // Both apps read what the indexers published (as_of, freshness headers) now, not at their
    // last poll: each polls on its own timer, and the bodies are compared byte for byte.
    for (const a of [h.app, app]) await a.get(DataFreshness).refresh();
    for (const url of urls) {
      const [p, r] = [await h.get(url), await inject(app, url)];
      expect([url, r.status]).toEqual([url, url.includes(UNKNOWN_POOL) ? 404 : 200]);
      expect([url, r.text]).toEqual([url, p.text]);
    }
  });

  it("readiness: ready, with the replica's replay position (the primary's readiness has replica null)", async () => {
    const app = await replicaApp();
    const [{ lsn }] = await withClient(h.db.url, async (c) => (await c.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows);
    await replica.catchUp();
    const r = await inject(app, '/health/ready');
    expect(r.status).toBe(200);
    expect(r.body.detail.replica).toMatchObject({ replay_lag_s: 0, paused: false, replay_lsn: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/) });
    const [{ replayed }] = await withClient(
      replica.adminUrl,
      async (c) => (await c.query<{ replayed: boolean }>('SELECT $1::pg_lsn >= $2::pg_lsn AS replayed', [r.body.detail.replica.replay_lsn, lsn])).rows,
    );
    expect(replayed).toBe(true);
    expect((await h.get('/health/ready')).body.detail.replica).toBeNull();
  });

  it('replay paused: new data is not served and readiness reports the lag (503 past the threshold); resumed: caught up', async () => {
    const app = await replicaApp({ READY_MAX_REPLICA_LAG_S: '1' });
    const fresh = addr('pool:replica-new');
    const query = `/pools?query=${fresh}`;
    await replica.pauseReplay();
    try {
      await h.project([
        poolDiscovered({ pool: fresh, blockTime: NOW - 5 }, { tokenX: WIF, tokenY: USDC, authority: AUTH2, quotingAuthority: null, midpriceQ32: null }),
      ]);
      await publishCaughtUp(h.db.pool);
      expect((await h.get(query)).body.total).toBe(1); // on the primary
      let ready = await inject(app, '/health/ready');
      await waitFor(async () => (ready = await inject(app, '/health/ready')).status === 503, 15_000, 'the replica to lag past 1 s');
      expect(ready.body.detail.replica).toMatchObject({ paused: true });
      expect(ready.body.detail.replica.replay_lag_s).toBeGreaterThan(1);
      expect(ready.body.detail.replica.receive_lsn).not.toBe(ready.body.detail.replica.replay_lsn);
      expect(ready.body.detail.reasons).toEqual([expect.stringMatching(/^replica replay \d+ s behind the primary \(> 1 s\), replay paused$/)]);
      expect((await inject(app, query)).body.total).toBe(0); // not replayed: not served
    } finally {
      await replica.resumeReplay();
    }
    await replica.catchUp();
    await waitFor(async () => (await inject(app, query)).body.total === 1, 10_000, 'the new pool on the replica');
    const ready = await inject(app, '/health/ready');
    expect([ready.status, ready.body.detail.replica]).toEqual([200, expect.objectContaining({ paused: false, replay_lag_s: 0 })]);
    for (const url of [query, ...urls]) expect([url, (await inject(app, url)).text]).toEqual([url, (await h.get(url)).text]);
  });

  it('the API process as users start it: DATABASE_URL the primary, DATABASE_READ_URL the replica — it reads the replica', async () => {
    const port = await freePort();
    const database = new URL(h.db.url).pathname.slice(1);
    const api = startEntry(
      'apps/api/src/main.ts',
      { DATABASE_URL: h.db.url, DATABASE_READ_URL: replica.urlFor(database), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
      [],
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      let ready: { status?: string; detail?: { replica: unknown } } = {};
      await waitFor(
        async () => {
          const r = await fetch(`${base}/health/ready`).catch(() => undefined);
          if (r?.status === 200) ready = (await r.json()) as typeof ready;
          return r?.status === 200;
        },
        60_000,
        `the API process to be ready (output: ${api.output().slice(-500)})`,
      );
      expect(ready.detail?.replica).toMatchObject({ paused: false }); // null on a primary
      expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^hadron_api_replica_replay_lag_seconds 0$/m);
      const [{ n }] = await withClient(
        replica.adminUrl,
        async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'hadron-api%'")).rows,
      );
      expect(n).toBeGreaterThan(0);
      // The answers that do not depend on the request time (this process runs on the real clock).
      for (const url of urls.filter((u) => !u.includes('/fees?') && !u.includes('/history')))
        expect([url, await (await fetch(`${base}${url}`)).text()]).toEqual([url, (await h.get(url)).text]);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  }, 90_000);
});
