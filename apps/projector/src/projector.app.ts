import { collectDefaultMetrics } from 'prom-client';
import { z } from 'zod';
import { DEFAULT_BATCH_TIMEOUT_MS, envInt, everyWarningRepeats, publishStatus, type Logger, type Running, type Storage } from '@hadron/platform';
import { PromProjectorMetrics } from './metrics/projector-metrics';
import { ProjectorRunner, type ProjectionLag, type ProjectorLag } from './runner/projector-runner';

export const projectorEnvShape = {
  PROJECTOR_BATCH_SIZE: envInt(1, 50_000, 5000),
  /** How long one batch may run before its session is ended and it is retried (0: no deadline). */
  PROJECTOR_BATCH_TIMEOUT_MS: envInt(0, 86_400_000, DEFAULT_BATCH_TIMEOUT_MS),
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
  collectDefaultMetrics({ register: metrics.registry, prefix: 'hadron_projector_' });
  const runner = new ProjectorRunner({
    pool: storage.pool,
    log: log.child({ component: 'projector' }),
    metrics,
    maxBatchSize: config.PROJECTOR_BATCH_SIZE,
    batchTimeoutMs: config.PROJECTOR_BATCH_TIMEOUT_MS,
  });
  await runner.start(() => storage.eventLog.consumer(storage.pool, storage.url));

  // One status per projection: the build readers see (during an in-place upgrade the old one,
  // with the replay's progress in the detail); a stalled consumer says so.
  const publish = async () => {
    const lag = await runner.lag();
    for (const p of served(lag)) {
      const rebuild = lag.projections.find((b) => b.projection === p.projection && b !== p);
      await publishStatus(storage.pool, `projector:${p.projection}`, p.lag, {
        version: p.version,
        build: p.buildId,
        status: p.status,
        stalled: p.stalled,
        ...(p.failing.length ? { error: p.failing[0].error } : {}),
        ...(rebuild ? { rebuild: { version: rebuild.version, build: rebuild.buildId, lag: rebuild.lag.toString() } } : {}),
      });
    }
    return lag;
  };
  const timer = everyWarningRepeats(2000, publish, log, 'could not publish projector status');
  await publish();

  return {
    metrics,
    ready: async () => {
      const lag = await runner.lag();
      const serving = served(lag);
      const notReady = serving.filter((p) => p.lag > BigInt(config.READY_MAX_LAG) || p.stalled);
      return {
        ready: notReady.length === 0 && serving.length > 0,
        // `lag` is the group's; `owned` is this replica's share of it (none: idle — a Kafka member
        // beyond the partition count, or a Postgres-log standby), each partition with its own lag.
        detail: lag.projections.map((p) => ({
          projection: p.projection,
          group: p.group,
          lag: p.lag.toString(),
          status: p.status,
          stalled: p.stalled,
          owned: p.owned.partitions.map((o) => ({ topic: o.stream, partition: o.partition, lag: o.lag.toString() })),
          ...(p.owned.partitions.length === 0 ? { idle: true } : {}),
          ...(p.failing.length ? { error: p.failing[0].error } : {}),
        })),
      };
    },
    stop: async () => {
      clearInterval(timer);
      await runner.stop();
      await publish().catch(() => undefined);
    },
  };
}

/** Per projection, the build readers see (the building one when nothing is served yet). */
function served(lag: ProjectorLag): ProjectionLag[] {
  const byName = new Map<string, ProjectionLag>();
  for (const p of lag.projections) if (!byName.has(p.projection) || p.status === 'active') byName.set(p.projection, p);
  return [...byName.values()];
}
