import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { freePort } from '../pipeline/support/app-process';
import { datasetEvents, NOW, POOL_A, POOL_C } from './support/dataset';
import { publishCaughtUp, startApiHarness, waitFor, type ApiHarness } from './support/harness';

/**
 * A ROLLING RESTART BEHIND A LOAD BALANCER DROPS NOTHING. Two API processes, started as
 * `npm run start:api` starts them (without the build step), each in its own process group, over one
 * database the real projector filled. In front of them a small round-robin proxy that behaves like
 * a load balancer: it probes every backend's /health/ready every 200 ms and routes only to those
 * that last answered 200 (kept-alive connections to the backends; no retries). Ten clients keep
 * requesting the pool list and per-pool reports through it while one process gets SIGTERM (to its
 * whole group), exits 0, is started again and becomes ready, then the other the same way. Every
 * request must be answered 200: on SIGTERM a process turns not ready at once and keeps serving for
 * API_SHUTDOWN_GRACE_SECONDS (the proxy notices within a probe), then closes without dropping the
 * requests in flight.
 */

const ROOT = resolve(__dirname, '../..');
const PROBE_MS = 200;
const GRACE_S = 2; // > a probe interval plus a slow probe on a busy machine
const CLIENTS = 10;
const CLIENT_PAUSE_MS = 20;
const PATHS = ['/pools', `/pools/${POOL_A}/fees?interval=all`, '/pools?cluster=devnet', `/pools/${POOL_C}/fees?interval=7d`];
/** Hard bound: the clients stop by themselves after this, whatever happens. */
const MAX_RUN_MS = 90_000;

interface ApiProcess {
  port: number;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

interface Backend {
  port: number;
  ready: boolean;
  probes: number;
}

interface Outcome {
  at: number;
  path: string;
  status: number;
  backend: string | undefined;
  /** The backend answered with `Connection: close`: it was draining. */
  draining: boolean;
  error?: string;
}

let h: ApiHarness;
const processes: ApiProcess[] = [];

function startApi(port: number): ApiProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'DATABASE_URL' || k === 'KAFKA_BROKERS' || k.startsWith('TEST_') || k.startsWith('npm_')) delete env[k];
  Object.assign(env, {
    DATABASE_URL: h.db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    API_SHUTDOWN_GRACE_SECONDS: String(GRACE_S),
    // The projector status is published once by the test; it must not go stale during the run.
    READY_MAX_STALENESS_S: '86400',
  });
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'apps/api/src/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((ok) => child.once('close', (code) => ok(code)));
  const p = { port, child, output: () => out, exited };
  processes.push(p);
  return p;
}

function status(port: number, path: string, timeoutMs: number): Promise<number> {
  return new Promise((ok) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode!));
      res.on('error', () => ok(0));
    });
    req.on('timeout', () => req.destroy(new Error('probe timeout')));
    req.on('error', () => ok(0));
    req.end();
  });
}

/** A round-robin load balancer: routes only to backends whose last /health/ready probe was 200. */
class Balancer {
  readonly backends: Backend[];
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private readonly server: Server;
  private next = 0;
  private probing = true;
  private readonly prober: Promise<void>;

  constructor(ports: number[]) {
    this.backends = ports.map((port) => ({ port, ready: false, probes: 0 }));
    this.server = createServer((req, res) => this.route(req, res));
    this.prober = this.probeLoop();
  }

  async listen(): Promise<number> {
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    return (this.server.address() as AddressInfo).port;
  }

  private async probeLoop(): Promise<void> {
    while (this.probing) {
      await Promise.all(
        this.backends.map(async (b) => {
          b.ready = (await status(b.port, '/health/ready', 1000)) === 200;
          b.probes++;
        }),
      );
      await new Promise((r) => setTimeout(r, PROBE_MS));
    }
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const ready = this.backends.filter((b) => b.ready);
    if (ready.length === 0) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('no backend ready');
      return;
    }
    const backend = ready[this.next++ % ready.length];
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: backend.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: `127.0.0.1:${backend.port}` },
        agent: this.agent,
      },
      (up) => {
        const headers: Record<string, string | string[] | undefined> = {
          ...up.headers,
          'x-backend': String(backend.port),
          'x-backend-connection': String(up.headers.connection ?? ''),
        };
        delete headers.connection;
        delete headers['keep-alive'];
        delete headers['transfer-encoding'];
        res.writeHead(up.statusCode!, headers);
        up.pipe(res);
        up.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain', 'x-backend': String(backend.port) }).end(`bad gateway: ${e.code ?? e.message}`);
    });
    req.pipe(upstream);
  }

  async close(): Promise<void> {
    this.probing = false;
    await this.prober;
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise((ok) => this.server.close(ok));
  }
}

/** One client: requests PATHS in turn through the balancer until `stop()` says so. */
async function client(id: number, port: number, agent: Agent, stop: () => boolean, outcomes: Outcome[]): Promise<void> {
  for (let i = id; !stop(); i++) {
    const path = PATHS[i % PATHS.length];
    outcomes.push(
      await new Promise<Outcome>((ok) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            let status = res.statusCode!;
            try {
              JSON.parse(body);
            } catch {
              if (status === 200) status = -1; // a truncated 200 is a failure too
            }
            ok({
              at: Date.now(),
              path,
              status,
              backend: res.headers['x-backend'] as string | undefined,
              draining: res.headers['x-backend-connection'] === 'close',
              error: status === 200 ? undefined : body.slice(0, 200),
            });
          });
          res.on('error', (e) => ok({ at: Date.now(), path, status: 0, backend: undefined, draining: false, error: String(e) }));
        });
        req.on('error', (e) => ok({ at: Date.now(), path, status: 0, backend: undefined, draining: false, error: String(e) }));
        req.end();
      }),
    );
    await new Promise((r) => setTimeout(r, CLIENT_PAUSE_MS));
  }
}

beforeAll(async () => {
  h = await startApiHarness({ now: NOW, events: datasetEvents() });
  await publishCaughtUp(h.db.pool);
}, 60_000);

afterAll(async () => {
  for (const p of processes) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await Promise.all(processes.map((p) => p.exited));
  await h?.close();
}, 30_000);

it('restarting each of two API processes in turn under continuous traffic through a load balancer fails no request', async () => {
  const t0 = Date.now();
  const ports = [await freePort(), await freePort()];
  const current = ports.map((port) => startApi(port));
  const lb = new Balancer(ports);
  const lbPort = await lb.listen();
  const outcomes: Outcome[] = [];
  const clientAgent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  let stopClients = false;
  const hardStop = t0 + MAX_RUN_MS;
  const clients: Promise<void>[] = [];
  const restarts: Array<{ port: number; exitCode: number | null; signalledAt: number; exitedAt: number; readyAgainAt: number }> = [];
  let restartsFrom = 0;
  let restartsUntil = 0;
  try {
    await waitFor(async () => lb.backends.every((b) => b.ready), 60_000, 'both API processes ready behind the balancer');
    for (let id = 0; id < CLIENTS; id++) clients.push(client(id, lbPort, clientAgent, () => stopClients || Date.now() > hardStop, outcomes));
    await waitFor(async () => outcomes.length >= 100, 10_000, 'traffic flowing');

    restartsFrom = Date.now();
    for (const [i, port] of ports.entries()) {
      const old = current[i];
      const backend = lb.backends[i];
      if (old.child.exitCode !== null || old.child.signalCode !== null) {
        throw new Error(`the API on ${port} exited (${old.child.exitCode ?? old.child.signalCode}) before its restart:\n${old.output().slice(-2000)}`);
      }
      const signalledAt = Date.now();
      process.kill(-old.child.pid!, 'SIGTERM'); // the whole process group, as systemd/docker do
      const exitCode = await old.exited;
      const exitedAt = Date.now();
      current[i] = startApi(port);
      await waitFor(async () => backend.ready, 60_000, `API on ${port} ready again after its restart`);
      const readyAgainAt = Date.now();
      restarts.push({ port, exitCode, signalledAt, exitedAt, readyAgainAt });
      // Let it take traffic before the next one goes.
      const served = () => outcomes.filter((o) => o.backend === String(port) && o.at > readyAgainAt).length;
      await waitFor(async () => served() >= 20, 10_000, `the restarted API on ${port} serving`);
    }
    restartsUntil = Date.now();
  } finally {
    stopClients = true;
    await Promise.all(clients);
    clientAgent.destroy();
    await lb.close();
  }

  // Stop the second generation too (in parallel): each drains and exits 0.
  for (const p of current) process.kill(-p.child.pid!, 'SIGTERM');
  const lastCodes = await Promise.all(current.map((p) => p.exited));

  const failed = outcomes.filter((o) => o.status !== 200);
  const during = outcomes.filter((o) => o.at >= restartsFrom && o.at <= restartsUntil);
  const byBackendDuring = Object.fromEntries(ports.map((p) => [p, during.filter((o) => o.backend === String(p)).length]));
  const summary = {
    requests: outcomes.length,
    servedDuringRestarts: during.length,
    byBackendDuringRestarts: byBackendDuring,
    servedByDrainingProcess: outcomes.filter((o) => o.draining).length,
    failed: failed.length,
    restarts: restarts.map((r) => ({ port: r.port, exitCode: r.exitCode, drainMs: r.exitedAt - r.signalledAt, downMs: r.readyAgainAt - r.signalledAt })),
    totalMs: Date.now() - t0,
  };
  process.stdout.write(`rolling restart: ${JSON.stringify(summary)}\n`);

  expect(failed.slice(0, 10)).toEqual([]);
  // Not vacuous: both restarts happened under real traffic, served by the other process meanwhile.
  expect(restarts.map((r) => r.exitCode)).toEqual([0, 0]);
  expect(during.length).toBeGreaterThanOrEqual(500);
  for (const p of ports) expect(byBackendDuring[p]).toBeGreaterThan(50);
  for (const r of restarts) expect(r.exitedAt - r.signalledAt).toBeGreaterThanOrEqual(GRACE_S * 1000 - 50); // it did serve through the grace
  // Every process, both generations, drained: not ready, grace, closed, then stopped cleanly, exit 0.
  expect(lastCodes).toEqual([0, 0]);
  for (const p of processes) {
    const said = p
      .output()
      .split('\n')
      .filter((l) => /api: (shutting down|grace period over|drained|stopped cleanly)/.test(l));
    expect({ port: p.port, said: said.map((l) => JSON.parse(l).msg as string) }).toEqual({
      port: p.port,
      said: [
        'api: shutting down: /health/ready answers 503; still serving through the grace period',
        'api: grace period over: closing (idle connections now, requests in flight are finished)',
        'api: drained',
        'api: stopped cleanly',
      ],
    });
  }
}, 150_000);
