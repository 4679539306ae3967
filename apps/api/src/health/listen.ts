import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startOpsServer, type OpsServer } from '@hadron/platform/runtime/ops-server';
import type { ApiConfig } from '../api.config';
import { ApiMetrics } from '../metrics/api-metrics';
import { ReadinessCheck } from './readiness';

const opsServers = new WeakMap<NestFastifyApplication, OpsServer>();

/**
 * Listens on PORT/HOST and, when API_OPS_PORT is set, serves /health, /health/ready (with its
 * details) and /metrics on API_OPS_PORT/API_OPS_HOST (default 127.0.0.1), as the indexer and the
 * projector do on their OPS_PORT; the API port then answers /metrics 404 and readiness without
 * details. The ops listener closes with the app (at the end of drainApiApp).
 */
export async function listenApi(app: NestFastifyApplication, config: ApiConfig): Promise<{ port: number; opsPort: number | null }> {
  await app.listen(config.PORT, config.HOST);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  if (config.API_OPS_PORT === undefined) return { port, opsPort: null };
  const readiness = app.get(ReadinessCheck);
  const ops = await startOpsServer({
    port: config.API_OPS_PORT,
    host: config.API_OPS_HOST,
    registry: app.get(ApiMetrics).registry,
    ready: async () => readiness.check(),
  });
  opsServers.set(app, ops);
  return { port, opsPort: ops.port };
}

/** Closes the ops listener of `app`, if any (the app's onClose hook calls it). */
export async function closeApiOps(app: NestFastifyApplication): Promise<void> {
  const ops = opsServers.get(app);
  opsServers.delete(app);
  await ops?.close();
}
