import type { INestApplication } from '@nestjs/common';
import type { Logger } from '@hadron/platform/logging/logger';
import { API_LOGGER } from '../http/tokens';
import { ShutdownState } from './shutdown-state';

const drains = new WeakMap<INestApplication, Promise<void>>();

/**
 * Takes an API app out of service without dropping a request (a rolling restart):
 * 1. at once: /health/ready answers 503 (`shutting down`) and every response carries
 *    `Connection: close`, so load balancers stop routing here and clients drop their kept-alive
 *    sockets to this replica; /health and every endpoint still answer;
 * 2. after `graceMs` (API_SHUTDOWN_GRACE_SECONDS; 0 = at once): `app.close()`, i.e. Fastify stops
 *    accepting, closes idle keep-alive connections at once (forceCloseConnections: 'idle'), answers
 *    503 to a request arriving on a busy connection (return503OnClosing), and resolves once the
 *    requests in flight have been answered.
 * The caller still owns the database pool (close it afterwards). Calling it again returns the same drain.
 */
export function drainApiApp(app: INestApplication, graceMs: number): Promise<void> {
  const existing = drains.get(app);
  if (existing) return existing;
  const drain = run(app, graceMs);
  drains.set(app, drain);
  return drain;
}

async function run(app: INestApplication, graceMs: number): Promise<void> {
  const log = app.get<Logger>(API_LOGGER);
  const state = app.get(ShutdownState);
  const started = Date.now();
  state.begin(started);
  log.info({ graceSeconds: graceMs / 1000 }, 'api: shutting down: /health/ready answers 503; still serving through the grace period');
  if (graceMs > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
  log.info({ responsesWhileDraining: state.responsesWhileDraining }, 'api: grace period over: closing (idle connections now, requests in flight are finished)');
  await app.close();
  log.info({ responsesWhileDraining: state.responsesWhileDraining, drainMs: Date.now() - started }, 'api: drained');
}
