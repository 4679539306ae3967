/**
 * The projector in its own process, for the kill -9 test: runs a ProjectorRunner over the log the
 * environment selects (DATABASE_URL; KAFKA_BROKERS… for the Kafka adapter), prints `ready`, then a
 * JSON progress line every LAG_EVERY_MS: {"lag":"<total>","active":<every projection on its active build>}.
 * Env PROJECTIONS (comma list, default all), BATCH, NOW_SEC (pins the refresh clock). SIGTERM drains and exits 0.
 */
import { createLogger, openStorage, parseEnv, storageEnvSchema } from '@hadron/platform';
import { projectorMigrations } from '../src/migrations';
import { ALL_PROJECTIONS, projectionByName } from '../src/projections';
import { ProjectorRunner } from '../src/runner/projector-runner';

async function main(): Promise<void> {
  const env = parseEnv(storageEnvSchema);
  const log = createLogger('projector-child', process.env.CHILD_LOG_LEVEL ?? 'warn');
  const storage = await openStorage(env, log, [projectorMigrations], { poolSize: 8, application: 'projector-child' });
  const projections = process.env.PROJECTIONS ? process.env.PROJECTIONS.split(',').map(projectionByName) : ALL_PROJECTIONS;
  const pinned = process.env.NOW_SEC ? Number(process.env.NOW_SEC) : undefined;
  const runner = new ProjectorRunner({
    pool: storage.pool,
    log,
    projections,
    maxBatchSize: Number(process.env.BATCH ?? 5000),
    registryPollMs: 1000,
    lagPollMs: 3_600_000,
    nowSec: pinned === undefined ? undefined : () => pinned,
  });
  await runner.start(() => storage.eventLog.consumer(storage.pool, storage.url));
  process.stdout.write('ready\n');
  // One lag report at a time: on a loaded machine a lag query can take longer than the interval,
  // and overlapping ones would pile up on the database the children are consuming from.
  let reporting = false;
  const report = setInterval(
    () => {
      if (reporting) return;
      reporting = true;
      void runner
        .lag()
        .then((l) =>
          process.stdout.write(
            `${JSON.stringify({ lag: l.total.toString(), active: l.projections.length === projections.length && l.projections.every((p) => p.status === 'active') })}\n`,
          ),
        )
        .catch(() => undefined)
        .finally(() => (reporting = false));
    },
    Number(process.env.LAG_EVERY_MS ?? 2000),
  );
  process.once('SIGTERM', () => {
    clearInterval(report);
    void runner
      .stop()
      .then(() => storage.close())
      .then(() => process.exit(0));
  });
}

main().catch((e) => {
  process.stderr.write(`projector-child failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
