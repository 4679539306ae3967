import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** A readiness probe gets an answer within this long, whatever the check is waiting for. */
const READY_TIMEOUT_MS = 900;

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `/health`, `/health/ready` and `/metrics` for deployables without an HTTP API of their own
 * (indexer, projector), so SREs probe and scrape every process the same way.
 */
export async function startOpsServer(opts: {
  port: number;
  host: string;
  registry: Registry;
  ready: () => Promise<{ ready: boolean; detail: unknown }>;
  readyTimeoutMs?: number;
}): Promise<OpsServer> {
  const answerWithin = opts.readyTimeoutMs ?? READY_TIMEOUT_MS;
  // One check at a time, whatever the probe rate; a probe that outwaits it gets 503 with the last
  // answer known, so readiness answers within a second while a dependency hangs (e.g. a broker down).
  let inFlight: Promise<{ ready: boolean; detail: unknown }> | null = null;
  let last: { ready: boolean; detail: unknown; at: number } | null = null;
  const check = () =>
    (inFlight ??= opts
      .ready()
      .then((r) => {
        last = { ...r, at: Date.now() };
        return r;
      })
      .finally(() => (inFlight = null)));
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(type === 'application/json' ? JSON.stringify(body) : String(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, { statusCode: 405, message: 'Method Not Allowed', error: 'Method Not Allowed' });
    if (path === '/health') return send(200, { status: 'ok' });
    if (path === '/health/ready') {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), answerWithin)));
      return void Promise.race([check(), late])
        .then(
          (r) => {
            if (r !== 'late') return send(r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', detail: r.detail });
            const known = last as { detail: unknown; at: number } | null;
            send(503, {
              status: 'not ready',
              detail: {
                reasons: [`readiness check did not answer within ${answerWithin} ms`],
                last: known ? { detail: known.detail, age_s: Math.round((Date.now() - known.at) / 100) / 10 } : null,
              },
            });
          },
          (e: Error) => send(503, { status: 'not ready', detail: e.message }),
        )
        .finally(() => clearTimeout(timer));
    }
    if (path === '/metrics') return void opts.registry.metrics().then((m) => send(200, m, opts.registry.contentType));
    send(404, { statusCode: 404, message: 'Not Found', error: 'Not Found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : opts.port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
