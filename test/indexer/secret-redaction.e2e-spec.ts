import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestDatabase } from '@hadron/platform/testing/test-database';
import { freePort, startEntry, type Started } from '../pipeline/support/app-process';
import { indexerDatabase, waitFor } from './indexer-harness';

/**
 * SECRETS NEVER LOGGED. The indexer runs as its own process (apps/indexer/src/main.ts) against RPC
 * endpoints whose URLs carry credentials the way providers hand them out — a query key
 * (`?api-key=`), userinfo (`user:password@`), a key in the path, and a websocket URL with its own
 * key — and the endpoint fails every way it can: 429, 500 with a body echoing the request and its
 * credentials (with control characters), 200 with garbage. Everything the process writes (every
 * line of stdout and stderr, debug level), its readiness answer and the status it publishes are
 * searched for the secrets: none may appear, while the lines about the failures are there, naming
 * the endpoints masked.
 */

const API_KEY = 'SEKRET-123';
const PASSWORD = 'PASSWORD-XYZ';
const PATH_TOKEN = 'PATHTOKEN0123456789abcdefXYZ';
const WS_KEY = 'WS-SEKRET-789';
const SECRETS = [API_KEY, PASSWORD, PATH_TOKEN, WS_KEY, Buffer.from(`user:${PASSWORD}`).toString('base64')];

interface Seen {
  url: string;
  authorization?: string;
  /** The JSON-RPC method (a batch's first). */
  method: string;
}

function firstMethod(body: string): string {
  try {
    const sent = JSON.parse(body) as { method?: string } | { method?: string }[];
    return String((Array.isArray(sent) ? sent[0] : sent)?.method);
  } catch {
    return '';
  }
}

let server: Server;
let port: number;
let db: TestDatabase;
const seen: Seen[] = [];
const upgrades: string[] = [];
const children: ChildProcess[] = [];

/**
 * Every RPC request fails, in turn per endpoint and method: 429, 500 echoing what it was sent (its
 * URL and credentials), 200 with garbage. Per method, so that whatever calls a cycle makes, the one
 * that fails it meets each of the three in turn.
 */
function failingRpc(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  const body: Buffer[] = [];
  req.on('data', (c: Buffer) => body.push(c));
  req.on('end', () => {
    const s: Seen = { url: req.url ?? '', authorization: req.headers.authorization, method: firstMethod(Buffer.concat(body).toString()) };
    seen.push(s);
    const turn = seen.filter((x) => x.url === s.url && x.method === s.method).length % 3;
    const credentials = s.authorization ? Buffer.from(s.authorization.replace(/^Basic /, ''), 'base64').toString() : 'none';
    if (turn === 0) return void res.writeHead(429, { 'retry-after': '0', 'content-type': 'text/plain' }).end(`rate limited: ${s.url}`);
    if (turn === 1)
      return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`internal error for ${s.url}\n\u001b[31mcredentials ${credentials}\u0000 end`);
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>gateway ${s.url} ${credentials}</html>`);
  });
}

beforeAll(async () => {
  server = createServer(failingRpc);
  // The websocket wake-up connects here too: the upgrade is refused (the socket dropped).
  server.on('upgrade', (req: IncomingMessage, socket: import('node:stream').Duplex) => {
    upgrades.push(req.url ?? '');
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  db = await indexerDatabase();
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await db?.drop();
});

const lines = (started: Started) =>
  started
    .output()
    .split('\n')
    .filter((l) => l.trim() !== '');
const json = (started: Started) =>
  lines(started).flatMap((l) =>
    l.startsWith('{') ? [JSON.parse(l) as { msg: string; cluster?: string; rpc?: string; err?: { message?: string } | string; [k: string]: unknown }] : [],
  );
const errText = (l: { err?: { message?: string } | string }) => (typeof l.err === 'string' ? l.err : (l.err?.message ?? ''));

it('an indexer whose RPC endpoints carry credentials and fail every way logs the failures with the endpoints masked, and no secret anywhere', async () => {
  const base = `http://127.0.0.1:${port}`;
  const opsPort = await freePort();
  const indexer = startEntry(
    'apps/indexer/src/main.ts',
    {
      DATABASE_URL: db.url,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      INDEXER_CLUSTERS: 'mainnet-beta,devnet',
      RPC_URL_MAINNET_BETA: `${base}/?api-key=${API_KEY}`,
      RPC_URL_DEVNET: `http://user:${PASSWORD}@127.0.0.1:${port}/${PATH_TOKEN}/`,
      RPC_WS_URL_DEVNET: `ws://127.0.0.1:${port}/?api-key=${WS_KEY}`,
      RPC_MAX_ATTEMPTS: '2',
      RPC_RETRY_BASE_MS: '20',
      RPC_RETRY_MAX_MS: '100',
      RPC_TIMEOUT_MS: '2000',
      INDEXER_READY_MAX_RPC_FAILING_SECONDS: '1',
      OPS_PORT: String(opsPort),
      OPS_HOST: '127.0.0.1',
    },
    children,
  );

  // Bounded: until each endpoint has failed every way and the indexer has said so for each cluster.
  const failedWith = (cluster: string, text: RegExp) =>
    json(indexer).some((l) => l.cluster === cluster && /indexing cycle failed/.test(l.msg) && text.test(errText(l)));
  await waitFor(
    'both clusters failing with 429 and 500, logged',
    () =>
      ['mainnet-beta', 'devnet'].every(
        (c) =>
          failedWith(c, /^HTTP 429 from /) && failedWith(c, /^HTTP 500 from /) && json(indexer).some((l) => l.cluster === c && /RPC calls failing/.test(l.msg)),
      ) || indexer.child.exitCode !== null,
    60_000,
    200,
  );
  expect(indexer.child.exitCode).toBeNull();
  const ready = await fetch(`http://127.0.0.1:${opsPort}/health/ready`).then(async (r) => ({ status: r.status, body: await r.text() }));
  const published = await db.pool.query<{ detail: string }>(`SELECT detail::text AS detail FROM component_status WHERE component LIKE 'indexer:%'`);
  indexer.child.kill('SIGTERM');
  expect(await indexer.exited).toBe(0);

  // The endpoints were used as configured: the query key and path token sent, userinfo as Basic auth, the websocket tried.
  expect(seen.some((s) => s.url === `/?api-key=${API_KEY}`)).toBe(true);
  expect(seen.filter((s) => s.url === `/${PATH_TOKEN}/`).every((s) => s.authorization === `Basic ${Buffer.from(`user:${PASSWORD}`).toString('base64')}`)).toBe(
    true,
  );
  expect(upgrades).toContain(`/?api-key=${WS_KEY}`);

  // No secret in any line the process wrote (stdout and stderr), nor in what it published:
  // the RPC credentials, nor the database's password (the embedded test server has one).
  const all = lines(indexer);
  expect(all.length).toBeGreaterThan(10);
  const dbPassword = decodeURIComponent(new URL(db.url).password);
  for (const secret of dbPassword.length >= 8 ? [...SECRETS, dbPassword] : SECRETS) {
    expect(all.filter((l) => l.includes(secret))).toEqual([]);
    expect(ready.body).not.toContain(secret);
    for (const row of published.rows) expect(row.detail).not.toContain(secret);
  }

  // ... while the failures are there, each naming its endpoint masked.
  const logged = json(indexer);
  const masked = { 'mainnet-beta': `${base}/?api-key=***`, devnet: `http://user:***@127.0.0.1:${port}/***/` };
  for (const [cluster, url] of Object.entries(masked)) {
    expect(logged.find((l) => l.msg === 'indexing' && l.cluster === cluster)).toMatchObject({ rpc: url });
    expect(logged.filter((l) => l.cluster === cluster && /RPC calls failing/.test(l.msg)).every((l) => l.rpc === url)).toBe(true);
    const failures = logged.filter((l) => l.cluster === cluster && /indexing cycle failed/.test(l.msg)).map(errText);
    expect(failures).toContain(`HTTP 429 from ${url}`);
    // The upstream's body quoted: cut, control characters gone, the credentials it echoed masked.
    const quoted = failures.find((m) => m.startsWith(`HTTP 500 from ${url}: `))!;
    expect(quoted).toMatch(/^HTTP 500 from \S+: internal error for (\/\?api-key=\*\*\*|\/\*\*\*\/) {2}\[31mcredentials (none|user:\*\*\*) {2}end$/);
    expect(quoted).not.toMatch(/[\u0000-\u001f\u007f]/);
  }
  expect(logged.find((l) => l.msg === 'indexing' && l.cluster === 'devnet')?.ws).toBe(`ws://127.0.0.1:${port}/?api-key=***`);
  expect(ready.status).toBe(503);
  expect(ready.body).toContain('HTTP');
}, 120_000);
