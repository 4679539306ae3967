import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Pool } from 'pg';
import type { HadronEvent } from '@hadron/contracts';
import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { PostgresEventLogConsumer, PostgresEventLogProducer } from '@hadron/platform/event-log/postgres/postgres-event-log';
import { createLogger } from '@hadron/platform/logging/logger';
import { publishStatus } from '@hadron/platform/status/component-status';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { ALL_PROJECTIONS, ProjectorRunner, projectorMigrations, type ProjectionDefinition } from '../../../apps/projector/src';
import { apiEnvSchema, createApiApp, type ApiConfig } from '../../../apps/api/src';
import { PoolListSnapshot } from '../../../apps/api/src/pools/pool-list/pool-list.snapshot';

export interface Response {
  status: number;
  text: string;
  /** JSON.parse of the body (big integers lose precision here: check `text` for exact digits). */
  body: any;
  headers: Record<string, unknown>;
}

export interface ApiHarness {
  db: TestDatabase;
  app: NestFastifyApplication;
  /** Appends events to the Postgres event log and waits until every projection has applied them. */
  project(events: readonly HadronEvent[]): Promise<void>;
  get(url: string): Promise<Response>;
  /** Another API app over the same database (e.g. other config, or its clock at `nowSec`); closed with the harness. */
  startApp(config?: Record<string, string>, nowSec?: number): Promise<NestFastifyApplication>;
  close(): Promise<void>;
}

/**
 * Settings every API app started inside a jest worker takes: its event loop is jest's, shared with
 * the in-process projector, fast-check and ts-jest's compiling, so a lag there is the test runner's,
 * not the API's. Back-pressure stays on its default everywhere the API runs as its own process
 * (`npm start`, `start:api`), and the tests of back-pressure itself set it explicitly.
 */
export const IN_PROCESS_API_ENV: Readonly<Record<string, string>> = { API_MAX_EVENT_LOOP_DELAY_MS: '0' };

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function inject(app: NestFastifyApplication, url: string): Promise<Response> {
  const res = await app.inject({ method: 'GET', url });
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, text: res.body, body, headers: res.headers };
}

/**
 * A fresh database with the platform and projector migrations, the real projector
 * (ProjectorRunner consuming the Postgres event log; 24 h stats refreshed at the pinned `now`),
 * and the API app with its clock pinned to `now` (Unix seconds).
 */
export async function startApiHarness(opts: {
  now: number;
  events?: readonly HadronEvent[];
  config?: Record<string, string>;
  /** The projector's definitions (default: the code's). Older released ones serve as an upgrade window would. */
  projections?: readonly ProjectionDefinition[];
  /** The server to create the database on (default: the test server), e.g. the primary of a replica. */
  adminUrl?: string;
}): Promise<ApiHarness> {
  const db = await createTestDatabase([eventLogMigrations, projectorMigrations], opts.adminUrl);
  const log = createLogger('api-e2e', process.env.E2E_LOG_LEVEL ?? 'silent');
  const producer = new PostgresEventLogProducer(db.pool);
  const projections = opts.projections ?? ALL_PROJECTIONS;
  const runner = new ProjectorRunner({ pool: db.pool, log, projections, nowSec: () => opts.now, registryPollMs: 60_000, lagPollMs: 60_000 });
  await runner.start(() => new PostgresEventLogConsumer(db.pool, db.url, log, 200));
  const apps: NestFastifyApplication[] = [];

  const startApp = async (config: Record<string, string> = {}, nowSec = opts.now) => {
    const parsed: ApiConfig = apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '100', ...IN_PROCESS_API_ENV, ...opts.config, ...config });
    const app = await createApiApp({ pool: db.pool, config: parsed, logger: log, clock: () => nowSec * 1000 });
    apps.push(app);
    return app;
  };

  const project = async (events: readonly HadronEvent[]) => {
    await producer.append(events);
    // Caught up, and every projection served by a build of the runner's version (a fresh database
    // starts on the migration's initial builds, upgraded in place at the first start).
    await waitFor(
      async () => {
        const lag = await runner.lag();
        return lag.total === 0n && lag.projections.length === projections.length && lag.projections.every((p) => p.status === 'active');
      },
      20_000,
      'projections to catch up',
    );
    for (const def of projections) if (def.refresh) await runner.refresh(def);
    for (const app of apps) await app.get(PoolListSnapshot).refresh();
  };

  if (opts.events?.length) await project(opts.events);
  const app = await startApp();
  return {
    db,
    app,
    project,
    get: (url) => inject(app, url),
    startApp,
    close: async () => {
      for (const a of apps) await a.close();
      await runner.stop();
      await db.drop();
    },
  };
}

/**
 * What a caught-up indexer (both clusters) and projector publish, so the API's readiness is 200:
 * API tests serve a seeded database, with no indexer or projector running.
 */
export async function publishCaughtUp(pool: Pool): Promise<void> {
  for (const cluster of ['mainnet-beta', 'devnet']) {
    await publishStatus(pool, `indexer:${cluster}`, 0n, {
      cursorSlot: 1_000,
      headSlot: 1_000,
      slotLag: 0,
      lagSeconds: 0,
      rpcFailingSeconds: 0,
      backfillDone: true,
      ready: true,
    });
  }
  for (const p of ALL_PROJECTIONS) await publishStatus(pool, `projector:${p.name}`, 0n);
}

/**
 * The one error shape (DESIGN §5 plus `code`, and `parameter` when one parameter is at fault):
 * what a 4xx/5xx body must equal, whatever its message.
 */
export function errorShape(status: number, body: { parameter?: unknown }): Record<string, unknown> {
  return {
    statusCode: status,
    error: expect.any(String),
    message: expect.any(String),
    code: expect.stringMatching(/^[a-z_]+$/),
    ...(body?.parameter !== undefined ? { parameter: expect.any(String) } : {}),
  };
}
