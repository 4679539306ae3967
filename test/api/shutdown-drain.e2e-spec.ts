import { request as httpRequest, Agent, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@hadron/platform/logging/logger';
import { apiEnvSchema, createApiApp, drainApiApp } from '../../apps/api/src';
import { ALL_PROJECTIONS } from '../../apps/projector/src';
import { ReadDb } from '../../apps/api/src/database/read-db';
import { datasetEvents, NOW, POOL_A } from './support/dataset';
import { IN_PROCESS_API_ENV, publishCaughtUp, startApiHarness, type ApiHarness } from './support/harness';

/**
 * drainApiApp (what SIGTERM runs in the API and in the one-process app), on a listening app over
 * HTTP: not ready at once, still serving through the grace period with `Connection: close`, then
 * closed: idle keep-alive connections at once, a request in flight answered.
 */

interface Got {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  at: number;
}

function get(port: number, path: string, agent: Agent): Promise<Got> {
  return new Promise((ok, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined, at: Date.now() }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let h: ApiHarness;
const apps: NestFastifyApplication[] = [];
const agents: Agent[] = [];

beforeAll(async () => {
  h = await startApiHarness({ now: NOW, events: datasetEvents() });
  await publishCaughtUp(h.db.pool);
}, 60_000);

afterAll(async () => {
  for (const a of agents) a.destroy();
  for (const app of apps) await drainApiApp(app, 0); // the same drain when a test already ran it
  await h?.close();
});

async function listening(): Promise<{ app: NestFastifyApplication; port: number; agent: Agent }> {
  const config = apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '100', ...IN_PROCESS_API_ENV });
  const app = await createApiApp({ pool: h.db.pool, config, logger: createLogger('api-e2e', process.env.E2E_LOG_LEVEL ?? 'silent'), clock: () => NOW * 1000 });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  const agent = new Agent({ keepAlive: true });
  agents.push(agent);
  return { app, port: (app.getHttpServer().address() as AddressInfo).port, agent };
}

it('readiness turns 503 (shutting down) as soon as draining starts, while /pools, a pool and /health still answer 200 through the grace', async () => {
  const { app, port, agent } = await listening();
  const before = await get(port, '/health/ready', agent);
  expect(before).toMatchObject({ status: 200, body: { status: 'ready', detail: { reasons: [] } }, headers: { connection: 'keep-alive' } });

  const graceMs = 1500;
  const started = Date.now();
  const drained = drainApiApp(app, graceMs);
  const ready = await get(port, '/health/ready', agent);
  expect(ready).toMatchObject({
    status: 503,
    body: { status: 'not ready', detail: { database: 'ok', pool_list: { loaded: true, pools: 6 }, reasons: ['shutting down'] } },
  });
  expect(ready.body.detail.projections).toHaveLength(ALL_PROJECTIONS.length); // each projection's status (publishCaughtUp)
  // Every response now asks the client to drop its kept-alive socket to this replica.
  expect(ready.headers.connection).toBe('close');
  for (const path of ['/pools', `/pools/${POOL_A}/fees?interval=all`, '/health']) {
    const r = await get(port, path, agent);
    expect({ path, status: r.status, connection: r.headers.connection }).toEqual({ path, status: 200, connection: 'close' });
  }
  expect((await get(port, '/pools', agent)).body.total).toBe(5); // mainnet-beta: A, B, C, E, F
  expect(Date.now() - started).toBeLessThan(graceMs); // all of that inside the grace
  expect(drainApiApp(app, graceMs)).toBe(drained); // a second call is the same drain

  await drained;
  expect(Date.now() - started).toBeGreaterThanOrEqual(graceMs - 5);
  await expect(get(port, '/health', new Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

it('after the grace: an idle keep-alive connection is closed at once, a request in flight is answered, then the drain resolves', async () => {
  const { app, port, agent } = await listening();
  // A kept-alive connection that served one request before the drain and then stays idle.
  const idle = connect(port, '127.0.0.1');
  let idleClosedAt = 0;
  idle.on('close', () => (idleClosedAt = Date.now()));
  const firstAnswer = new Promise<string>((ok) => idle.once('data', (b: Buffer) => ok(b.toString())));
  idle.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
  expect(await firstAnswer).toMatch(/^HTTP\/1\.1 200 [\s\S]*Connection: keep-alive/i);

  // The fees query of the next request takes 800 ms: it is still running when the grace ends.
  const original = ReadDb.prototype.query;
  let slowQueryDoneAt = 0;
  const spy = jest.spyOn(ReadDb.prototype, 'query').mockImplementation(async function (this: ReadDb, name: string, text: string, values?: readonly unknown[]) {
    if (!name.startsWith('api-pool-fees')) return original.call(this, name, text, values) as Promise<never[]>;
    await sleep(800);
    const rows = await original.call(this, name, text, values);
    slowQueryDoneAt = Date.now();
    return rows as never[];
  });
  try {
    const graceMs = 300;
    const started = Date.now();
    let drainedAt = 0;
    const drained = drainApiApp(app, graceMs).then(() => (drainedAt = Date.now()));
    await sleep(100);
    const slow = get(port, `/pools/${POOL_A}/fees?interval=all`, agent);
    const answer = await slow;
    await drained;
    expect(answer).toMatchObject({ status: 200, headers: { connection: 'close' }, body: { totals: { swap_count: expect.any(Number) } } });
    // Grace over at ~300 ms: the idle connection went then, not after Node's keep-alive timeout…
    expect(idleClosedAt - started).toBeGreaterThanOrEqual(graceMs - 5);
    expect(idleClosedAt - started).toBeLessThan(answer.at - started);
    // …while the request in flight (started at ~100 ms, answered at ~900 ms) was finished first.
    expect(answer.at - started).toBeGreaterThan(800);
    expect(slowQueryDoneAt).toBeGreaterThan(0);
    expect(drainedAt).toBeGreaterThanOrEqual(slowQueryDoneAt); // the drain waited for it
    expect(drainedAt - started).toBeLessThan(3000);
  } finally {
    spy.mockRestore();
    idle.destroy();
  }
});
