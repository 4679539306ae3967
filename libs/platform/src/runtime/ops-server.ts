import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `/health`, `/health/ready` and `/metrics` for deployables without an HTTP API of their own
 * (indexer, projector), so SREs probe and scrape every process the same way.
 */
export async function startOpsServer(opts: { port: number; host: string; registry: Registry; ready: () => Promise<{ ready: boolean; detail: unknown }> }): Promise<OpsServer> {
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(type === 'application/json' ? JSON.stringify(body) : String(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, { statusCode: 405, message: 'Method Not Allowed', error: 'Method Not Allowed' });
    if (path === '/health') return send(200, { status: 'ok' });
    if (path === '/health/ready')
      return void opts.ready().then(
        (r) => send(r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not ready', detail: r.detail }),
        (e: Error) => send(503, { status: 'not ready', detail: e.message }),
      );
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
