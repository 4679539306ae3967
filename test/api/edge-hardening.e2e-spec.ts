import { connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import bs58 from 'bs58';
import { createPool, endPool } from '@hadron/platform/database/pool';
import { createLogger } from '@hadron/platform/logging/logger';
import { apiEnvSchema, createApiApp, listenApi } from '../../apps/api/src';
import { ReadDb } from '../../apps/api/src/database/read-db';
import { datasetEvents, NOW, POOL_A } from './support/dataset';
import { publishCaughtUp, startApiHarness, waitFor, type ApiHarness } from './support/harness';

/** A real listener on loopback: what a client (or an attacker) reaches, timeouts included. */
async function listen(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  const a = app.getHttpServer().address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

/** Opens a raw connection and resolves, once it is closed by the server, with what it received. */
function rawConnection(base: string): { socket: Socket; received: () => string; closed: Promise<number> } {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let data = '';
  const opened = Date.now();
  socket.on('data', (b) => (data += b.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - opened)));
  return { socket, received: () => data, closed };
}

const perPool = [`/pools/${POOL_A}/fees`, `/pools/${POOL_A}/midprice/history`, `/pools/${POOL_A}/volume/history`];

describe('the HTTP edge: strict, bounded, fair', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: datasetEvents() });
    await publishCaughtUp(h.db.pool);
  });
  afterAll(async () => h?.close());

  describe('path addresses are validated before any query', () => {
    const bad = [
      'a%00b',
      '%00',
      'not-even-base58!',
      'O0Il'.repeat(9),
      bs58.encode(new Uint8Array(31).fill(7)),
      bs58.encode(new Uint8Array(33).fill(7)),
      `${POOL_A}x`,
    ];
    it.each(perPool.flatMap((p) => bad.map((b) => [p.replace(POOL_A, b)])))('%s → 400 naming the rule', async (url) => {
      const spy = jest.spyOn(ReadDb.prototype, 'query');
      const r = await h.get(url);
      expect(spy).not.toHaveBeenCalled();
      spy.mockRestore();
      expect(r).toMatchObject({
        status: 400,
        body: { statusCode: 400, error: 'Bad Request', message: 'address must be a base58-encoded 32-byte Solana address' },
      });
    });

    it('a well-formed address that is no pool is still 404 Pool not found', async () => {
      const unknown = bs58.encode(new Uint8Array(32).fill(9));
      for (const p of perPool) expect(await h.get(p.replace(POOL_A, unknown))).toMatchObject({ status: 404, body: { message: 'Pool not found' } });
    });
  });

  it.each(['/pools', ...perPool])('%s: prototype keys are unknown parameters like any other', async (path) => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const r = await h.get(`${path}?${key}=1`);
      expect(r).toMatchObject({
        status: 400,
        body: { error: 'Bad Request', message: expect.stringMatching(new RegExp(`^Unknown query parameter '${key}'; allowed: .*cluster`)) },
      });
    }
    expect((await h.get(`${path}?__proto__[x]=1&cluster=devnet`)).status).toBe(400);
  });

  it('only GET, HEAD and OPTIONS: any other method is 405 with Allow, on every path', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      for (const url of ['/pools', perPool[0], '/nope', '/health']) {
        const r = await h.app.inject({ method, url });
        expect(r.statusCode).toBe(405);
        expect(r.headers.allow).toBe('GET, HEAD, OPTIONS');
        expect(JSON.parse(r.body)).toEqual({
          statusCode: 405,
          error: 'Method Not Allowed',
          message: `Method ${method} is not allowed; allowed: GET, HEAD, OPTIONS`,
          code: 'method_not_allowed',
        });
      }
    }
    // OPTIONS (a CORS preflight, or a bare one) is answered 204 without a body on every path.
    for (const url of ['/pools', perPool[0], '/nope']) {
      const r = await h.app.inject({ method: 'OPTIONS', url });
      expect(r.statusCode).toBe(204);
      expect(r.body).toBe('');
    }
    const head = await h.app.inject({ method: 'HEAD', url: '/pools' });
    expect(head.statusCode).toBe(200);
  });

  it('every answer says nosniff and carries a CSP; /docs gets its own, data nothing runnable', async () => {
    for (const url of ['/pools', '/pools?page=0', `/pools/a%00b/fees`, '/nope', '/health']) {
      const r = await h.get(url);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    }
    const docs = await h.get('/docs');
    expect(docs.headers['x-content-type-options']).toBe('nosniff');
    expect(docs.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; .*frame-ancestors 'none'/);
    expect(docs.headers['content-security-policy']).not.toMatch(/unsafe/); // Swagger UI works without inline scripts or styles (checked in Chromium)
  });

  it('API_DOCS=false: no /docs, /docs-json or /docs-yaml', async () => {
    const app = await h.startApp({ API_DOCS: 'false' });
    for (const url of ['/docs', '/docs-json', '/docs-yaml', '/docs/swagger-ui-bundle.js'])
      expect((await app.inject({ method: 'GET', url })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/pools' })).statusCode).toBe(200);
  });

  describe('connections cannot be pinned', () => {
    it('a GET that declares a body is 413 at once and its connection closed (no waiting for the body)', async () => {
      const app = await h.startApp();
      const c = rawConnection(await listen(app));
      c.socket.write(`GET /pools HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n`);
      const trickle = setInterval(() => c.socket.write('a'), 200);
      await c.closed;
      clearInterval(trickle);
      expect(c.received()).toMatch(/^HTTP\/1\.1 413 /);
      expect(c.received()).toContain('This API takes no request body');
      // So did a chunked one.
      const d = rawConnection(await listenUrl(app));
      d.socket.write(`GET /pools HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n`);
      await d.closed;
      expect(d.received()).toMatch(/^HTTP\/1\.1 413 /);
    });

    it('headers trickled byte by byte: closed once API_HEADERS_TIMEOUT_MS has passed, while the client is still sending', async () => {
      const app = await h.startApp({ API_HEADERS_TIMEOUT_MS: '1000', API_REQUEST_TIMEOUT_MS: '1000' });
      const c = rawConnection(await listen(app));
      c.socket.write('GET /pools HTTP/1.1\r\nHost: x\r\n');
      let sent = 0;
      const trickle = setInterval(() => {
        if (!c.socket.destroyed) c.socket.write(`X-${sent++}: y\r\n`);
      }, 250);
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 20_000)));
      const outcome = await Promise.race([c.closed.then(() => 'closed' as const), limit]);
      clearTimeout(timer);
      clearInterval(trickle);
      c.socket.destroy();
      expect(outcome).toBe('closed');
      expect(c.received()).toMatch(/^HTTP\/1\.1 408 |^$/); // Node answers 408 Request Timeout (or just closes)
      expect(sent).toBeLessThan(80); // it was still trickling: 20 s would have been 80 lines
    });
  });

  describe('fair under abuse', () => {
    it('per-pool queries beyond API_HEAVY_CONCURRENCY + API_HEAVY_QUEUE are 503 with Retry-After, while the pool list answers every time', async () => {
      const app = await h.startApp({ API_HEAVY_CONCURRENCY: '1', API_HEAVY_QUEUE: '2' });
      const original = ReadDb.prototype.query;
      // Every database read of a per-pool query takes 300 ms: a busy database.
      const spy = jest.spyOn(ReadDb.prototype, 'query').mockImplementation(async function (this: ReadDb, ...args: Parameters<ReadDb['query']>) {
        await new Promise((r) => setTimeout(r, 300));
        return original.apply(this, args);
      });
      try {
        const heavy = Array.from({ length: 12 }, (_, i) => app.inject({ method: 'GET', url: `${perPool[i % 3]}?cluster=mainnet-beta` }));
        const list = await Promise.all(Array.from({ length: 20 }, () => app.inject({ method: 'GET', url: '/pools' })));
        // Operators see the gate: one running, two waiting (the rest were turned away).
        const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
        expect(metrics).toMatch(/^hadron_api_heavy_queries_running 1$/m);
        expect(metrics).toMatch(/^hadron_api_heavy_queries_waiting 2$/m);
        const done = await Promise.all(heavy);
        expect(list.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
        const codes = done.map((r) => r.statusCode);
        expect(codes.filter((c) => c === 200)).toHaveLength(3); // one running, two queued
        expect(codes.filter((c) => c === 503)).toHaveLength(9);
        for (const r of done.filter((r) => r.statusCode === 503)) {
          expect(r.headers['retry-after']).toBe('1');
          expect(JSON.parse(r.body)).toEqual({ statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable', code: 'overloaded' });
        }
      } finally {
        spy.mockRestore();
      }
      // Once they are through, everyone is served again.
      expect((await app.inject({ method: 'GET', url: perPool[0] })).statusCode).toBe(200);
    });

    it('a request whose client hangs up while it waits leaves the queue at once, and its query never runs', async () => {
      const app = await h.startApp({ API_HEAVY_CONCURRENCY: '1', API_HEAVY_QUEUE: '2' });
      const base = await listen(app);
      const gauges = async () => {
        const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
        const of = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(m)?.[1]);
        return { running: of('hadron_api_heavy_queries_running'), waiting: of('hadron_api_heavy_queries_waiting') };
      };
      const statements: string[] = [];
      // Every database read of a per-pool query takes a second (a busy database: long enough for the
      // two below to queue on a loaded machine), and is recorded.
      const slow = <K extends 'query' | 'queryArrays'>(method: K) => {
        const original = ReadDb.prototype[method] as (...a: unknown[]) => Promise<unknown>;
        return jest.spyOn(ReadDb.prototype, method).mockImplementation(async function (this: ReadDb, ...args: unknown[]) {
          statements.push(args[0] as string);
          await new Promise((r) => setTimeout(r, 1000));
          return original.apply(this, args);
        } as never);
      };
      const spies = [slow('query'), slow('queryArrays')];
      try {
        const first = fetch(`${base}${perPool[0]}`);
        await waitFor(async () => (await gauges()).running === 1, 5000, 'the first query to run');
        // Two clients queue behind it, then give up.
        const quitters = [rawConnection(base), rawConnection(base)];
        for (const c of quitters) c.socket.write(`GET ${perPool[2]} HTTP/1.1\r\nHost: x\r\n\r\n`);
        await waitFor(async () => (await gauges()).waiting === 2, 5000, 'two queued');
        for (const c of quitters) c.socket.destroy();
        await waitFor(async () => (await gauges()).waiting === 0, 2000, 'the queue to empty');
        expect((await gauges()).running).toBe(1); // the first is still running: they left without a slot
        // Their places are free at once: two new clients are queued and answered, none turned away.
        const next = await Promise.all([fetch(`${base}${perPool[0]}`), fetch(`${base}${perPool[0]}`)]);
        expect(next.map((r) => r.status)).toEqual([200, 200]);
        expect((await first).status).toBe(200);
        expect(statements).not.toContain('api-volume-history'); // the abandoned requests' query never ran
        expect(statements.filter((n) => n === 'api-pool-fees')).toHaveLength(3);
      } finally {
        spies.forEach((s) => s.mockRestore());
      }
    });

    it('a client pipelining many requests on one connection: one close listener for all, and its hang-up empties the queue', async () => {
      const app = await h.startApp({ API_HEAVY_CONCURRENCY: '1', API_HEAVY_QUEUE: '32' });
      const base = await listen(app);
      const accepted: Socket[] = [];
      app.getHttpServer().on('connection', (s: Socket) => accepted.push(s));
      const waiting = async () => Number(/^hadron_api_heavy_queries_waiting (\d+)$/m.exec((await app.inject({ method: 'GET', url: '/metrics' })).body)?.[1]);
      const original = ReadDb.prototype.queryArrays;
      const spy = jest.spyOn(ReadDb.prototype, 'queryArrays').mockImplementation(async function (this: ReadDb, ...args: Parameters<ReadDb['queryArrays']>) {
        await new Promise((r) => setTimeout(r, 1000));
        return original.apply(this, args) as never;
      });
      const request = `GET ${perPool[2]} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const listeners: number[] = [];
      try {
        const client = rawConnection(base);
        client.socket.write(request.repeat(2)); // one runs, one waits
        await waitFor(async () => (await waiting()) === 1, 5000, 'one request to queue');
        listeners.push(accepted[0].listenerCount('close'));
        client.socket.write(request.repeat(14));
        await waitFor(async () => (await waiting()) === 15, 5000, 'the pipelined requests to queue');
        listeners.push(accepted[0].listenerCount('close'));
        client.socket.destroy();
        await waitFor(async () => (await waiting()) === 0, 2000, 'the queue to empty');
      } finally {
        spy.mockRestore();
      }
      // Fifteen waiting requests of one connection hold no more of its listeners than one did (before: one each, and past ten Node's leak warning).
      expect(listeners[1]).toBe(listeners[0]);
    });

    it('shedding is logged once per period, without a stack, not once per turned-away request', async () => {
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(chunk.toString()), cb()) });
      const config = apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '100', API_HEAVY_CONCURRENCY: '1', API_HEAVY_QUEUE: '1' });
      const app = await createApiApp({ pool: h.db.pool, config, logger: createLogger('shed', 'debug', sink, 'json'), clock: () => NOW * 1000 });
      const original = ReadDb.prototype.query;
      const spy = jest.spyOn(ReadDb.prototype, 'query').mockImplementation(async function (this: ReadDb, ...args: Parameters<ReadDb['query']>) {
        await new Promise((r) => setTimeout(r, 300));
        return original.apply(this, args);
      });
      let codes: number[];
      try {
        // A flood: 60 per-pool queries at once, two of which find a slot.
        const done = await Promise.all(Array.from({ length: 60 }, (_, i) => app.inject({ method: 'GET', url: perPool[i % 3] })));
        codes = done.map((r) => r.statusCode);
      } finally {
        spy.mockRestore();
        await app.close();
      }
      expect(codes.filter((c) => c === 503)).toHaveLength(58);
      const entries = lines.map((l) => JSON.parse(l) as { level: number; msg: string; route?: string });
      // No error line, and one warning for the 58 (the next one, with the count, would come SHED_LOG_EVERY_MS later).
      expect(entries.filter((e) => e.level >= 50)).toEqual([]);
      const shed = entries.filter((e) => /shedding load/.test(e.msg));
      expect(shed).toHaveLength(1);
      expect(shed[0]).toMatchObject({ level: 40, route: expect.stringMatching(/^\/pools\/:address\//) });
      expect(lines.join('')).not.toMatch(/\bat .*\.(ts|js):\d+/);
    });

    it('a database outage is logged once per period, not once per request answered 503', async () => {
      // The API reaches Postgres through a TCP relay this test can cut: an outage as the API sees
      // one (open connections reset, new ones refused), while the server itself stays up.
      const target = new URL(h.db.url);
      const sockets = new Set<Socket>();
      const relay = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const relayUrl = new URL(h.db.url);
      relayUrl.hostname = '127.0.0.1';
      relayUrl.port = String((relay.address() as { port: number }).port);
      const pool = createPool(relayUrl.toString(), { max: 4, application: 'api-outage-test' });
      const lines: string[] = [];
      const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(chunk.toString()), cb()) });
      const config = apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '60000' });
      const app = await createApiApp({ pool, config, logger: createLogger('outage', 'info', sink, 'json'), clock: () => NOW * 1000 });
      let codes: number[] = [];
      let bodies: unknown[] = [];
      try {
        expect((await app.inject({ method: 'GET', url: perPool[0] })).statusCode).toBe(200);
        lines.length = 0;
        relay.close();
        for (const s of sockets) s.destroy();
        const answers = [];
        for (let i = 0; i < 30; i++) answers.push(await app.inject({ method: 'GET', url: perPool[i % 3] }));
        codes = answers.map((r) => r.statusCode);
        bodies = [...new Set(answers.map((r) => r.body))].map((b) => JSON.parse(b) as unknown);
      } finally {
        await app.close();
        await endPool(pool).catch(() => undefined);
        relay.close();
      }
      expect(new Set(codes)).toEqual(new Set([503]));
      expect(bodies).toEqual([{ statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable', code: 'unavailable' }]);
      const entries = lines.map((l) => JSON.parse(l) as { level: number; msg: string; route?: string; err?: { message?: string } });
      // One error line for the 30 (the count of the rest would come REPEAT_LOG_EVERY_MS later), saying why.
      const errors = entries.filter((e) => e.level >= 50);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ msg: expect.stringMatching(/read database is unavailable/), route: expect.stringMatching(/^\/pools\/:address\//) });
      expect(errors[0].err?.message).toMatch(/ECONNREFUSED|terminat|Connection/i);
      expect(entries.filter((e) => /request failed/.test(e.msg))).toEqual([]);
    });

    it('back-pressure: while the event loop lags past API_MAX_EVENT_LOOP_DELAY_MS, 503 with Retry-After; liveness and metrics still answer', async () => {
      const app = await h.startApp({ API_MAX_EVENT_LOOP_DELAY_MS: '50' });
      // Block the loop for 300 ms at a time, for 2.5 s: under-pressure samples its mean delay every second.
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        const stop = Date.now() + 300;
        while (Date.now() < stop);
        await new Promise((r) => setImmediate(r));
      }
      const list = await app.inject({ method: 'GET', url: '/pools' });
      expect(list.statusCode).toBe(503);
      expect(list.headers['retry-after']).toBe('1');
      expect(JSON.parse(list.body)).toEqual({ statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable', code: 'overloaded' });
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      // And it recovers by itself once the loop is free again.
      await new Promise((r) => setTimeout(r, 2200));
      expect((await app.inject({ method: 'GET', url: '/pools' })).statusCode).toBe(200);
    });

    it('API_RATE_LIMIT_MAX: the client past its budget gets 429 with Retry-After in the one error shape; probes are never limited', async () => {
      const app = await h.startApp({ API_RATE_LIMIT_MAX: '3', API_RATE_LIMIT_WINDOW_SECONDS: '60' });
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await app.inject({ method: 'GET', url: '/pools', remoteAddress: '10.0.0.1' })).statusCode);
      expect(codes).toEqual([200, 200, 200]);
      const over = await app.inject({ method: 'GET', url: `/pools/${POOL_A}/fees`, remoteAddress: '10.0.0.1' });
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(over.body)).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        message: expect.stringMatching(/^Rate limit exceeded: at most 3 requests per 60 s per client; retry in /),
        code: 'rate_limited',
      });
      // Another client has its own budget; probes are not counted.
      expect((await app.inject({ method: 'GET', url: '/pools', remoteAddress: '10.0.0.2' })).statusCode).toBe(200);
      for (let i = 0; i < 5; i++) expect((await app.inject({ method: 'GET', url: '/health/ready', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
    });

    it('the rate limit is off by default', async () => {
      const codes = new Set<number>();
      for (let i = 0; i < 300; i++) codes.add((await h.app.inject({ method: 'GET', url: '/pools', remoteAddress: '10.0.0.3' })).statusCode);
      expect([...codes]).toEqual([200]);
    });
  });

  it('API_OPS_PORT: /metrics and readiness details move to a loopback ops listener', async () => {
    const config = { ...apiEnvSchema.parse({ HOST: '127.0.0.1', API_OPS_PORT: '0', POOL_LIST_REFRESH_MS: '100' }), PORT: 0 };
    const app = await createApiApp({ pool: h.db.pool, config, logger: createLogger('ops-port', 'silent'), clock: () => NOW * 1000 });
    try {
      const { port, opsPort } = await listenApi(app, config);
      expect(opsPort).toEqual(expect.any(Number));
      const pub = `http://127.0.0.1:${port}`;
      const ops = `http://127.0.0.1:${opsPort}`;
      expect((await fetch(`${pub}/metrics`)).status).toBe(404);
      const ready = await fetch(`${pub}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
      const metrics = await fetch(`${ops}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('hadron_api_request_duration_seconds');
      const detail = (await (await fetch(`${ops}/health/ready`)).json()) as { status: string; detail: { clusters: unknown[] } };
      expect(detail).toMatchObject({
        status: 'ready',
        detail: { database: 'ok', clusters: expect.arrayContaining([expect.objectContaining({ cluster: 'mainnet-beta', ready: true })]) },
      });
    } finally {
      await app.close();
    }
  });

  it('a client that hangs up mid-request is logged at debug, without a stack trace', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(chunk.toString()), cb()) });
    const config = apiEnvSchema.parse({ POOL_LIST_REFRESH_MS: '100' });
    const app = await createApiApp({ pool: h.db.pool, config, logger: createLogger('abort', 'debug', sink, 'json'), clock: () => NOW * 1000 });
    const original = ReadDb.prototype.query;
    const spy = jest.spyOn(ReadDb.prototype, 'query').mockImplementation(async function (this: ReadDb, ...args: Parameters<ReadDb['query']>) {
      await new Promise((r) => setTimeout(r, 300));
      return original.apply(this, args);
    });
    try {
      const base = await listen(app);
      const controller = new AbortController();
      const pending = fetch(`${base}${perPool[0]}`, { signal: controller.signal }).catch(() => 'aborted');
      await new Promise((r) => setTimeout(r, 100));
      controller.abort();
      expect(await pending).toBe('aborted');
      // And one that hangs up while a large answer is being written.
      const big = rawConnection(base);
      big.socket.write(`GET ${perPool[2]}?start_time=0&end_time=3000000000 HTTP/1.1\r\nHost: x\r\n\r\n`);
      big.socket.once('data', () => big.socket.destroy());
      await big.closed;
      await new Promise((r) => setTimeout(r, 600));
    } finally {
      spy.mockRestore();
      await app.close();
    }
    const entries = lines.map((l) => JSON.parse(l) as { level: number; msg: string; err?: { stack?: string } });
    expect(entries.filter((e) => e.level >= 40)).toEqual([]);
    const aborted = entries.filter((e) => /client (closed|aborted)/i.test(e.msg));
    expect(aborted.length).toBeGreaterThan(0);
    for (const e of aborted) {
      expect(e.level).toBe(20);
      expect(JSON.stringify(e)).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
  });
});

async function listenUrl(app: NestFastifyApplication): Promise<string> {
  const a = app.getHttpServer().address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}
