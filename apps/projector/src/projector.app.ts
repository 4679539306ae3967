import { z } from 'zod';
import { envInt, publishStatus, type Logger, type Running, type Storage } from '@hadron/platform';
import { PromProjectorMetrics } from './metrics/projector-metrics';
import { ProjectorRunner } from './runner/projector-runner';

export const projectorEnvShape = {
  PROJECTOR_BATCH_SIZE: envInt(1, 50_000, 5000),
  /** Readiness: the projector is ready when every projection is at most this many events behind. */
  READY_MAX_LAG: envInt(0, Number.MAX_SAFE_INTEGER, 1000),
};
export const projectorEnvSchema = z.object(projectorEnvShape);
export type ProjectorConfig = z.infer<typeof projectorEnvSchema>;

export interface RunningProjector extends Running {
  metrics: PromProjectorMetrics;
  ready(): Promise<{ ready: boolean; detail: unknown }>;
}

/**
 * Runs every projection against the opened storage and publishes each projection's lag to
 * component_status (read by the API's readiness, whatever the log adapter).
 */
export async function startProjector(storage: Storage, config: ProjectorConfig, log: Logger): Promise<RunningProjector> {
  const metrics = new PromProjectorMetrics();
  const runner = new ProjectorRunner({ pool: storage.pool, log: log.child({ component: 'projector' }), metrics, maxBatchSize: config.PROJECTOR_BATCH_SIZE });
  await runner.start(() => storage.eventLog.consumer(storage.pool, storage.url));

  const publish = async () => {
    const lag = await runner.lag();
    for (const p of lag.projections) await publishStatus(storage.pool, `projector:${p.projection}`, p.lag, { version: p.version, build: p.buildId, status: p.status });
    return lag;
  };
  const timer = setInterval(() => void publish().catch((e: Error) => log.warn({ err: e.message }, 'could not publish projector status')), 2000);
  await publish();

  return {
    metrics,
    ready: async () => {
      const lag = await runner.lag();
      const behind = lag.projections.filter((p) => p.lag > BigInt(config.READY_MAX_LAG));
      return { ready: behind.length === 0, detail: lag.projections.map((p) => ({ projection: p.projection, lag: p.lag.toString(), status: p.status })) };
    },
    stop: async () => {
      clearInterval(timer);
      await runner.stop();
      await publish().catch(() => undefined);
    },
  };
}
