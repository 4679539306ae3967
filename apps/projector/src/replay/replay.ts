/**
 * npm run replay -- --projection <name|all> [--batch-size 5000] [--keep-retired 0] [--batch-timeout-ms 300000]
 *
 * Rebuilds a projection (`all`: every one at once, reading the log once for all) from the beginning of the event log into a fresh build (new schema, new
 * consumer group `<projection>.v<version>.<buildId>`), printing progress on stderr every second,
 * then switches the `read.*` views to it atomically and drops the old build. Uses the same
 * storage settings as the other processes (DATABASE_URL or the embedded Postgres, KAFKA_BROKERS).
 *
 * Every build holds every cluster. (A `--clusters` subset existed once: on the Postgres log a
 * group's checkpoint is one position for the whole log, so a subset build skipped the other
 * cluster's events for good, and became the served build at the switch.)
 */
import { ConfigError, createLogger, DEFAULT_BATCH_TIMEOUT_MS, openStorage, parseEnv, storageEnvSchema } from '@hadron/platform';
import { projectorMigrations } from '../migrations';
import { ALL_PROJECTIONS, projectionByName } from '../projections';
import { formatProgress, rebuildProjection } from './rebuild';

interface Args {
  projections: string[];
  batchSize: number;
  keepRetired: number;
  /** ConsumeOptions.batchTimeoutMs: as the projector's PROJECTOR_BATCH_TIMEOUT_MS. */
  batchTimeoutMs: number;
}

export function parseArgs(argv: readonly string[]): Args {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new ConfigError(`${flag} needs a value`);
    return v;
  };
  if (argv.includes('--clusters')) {
    throw new ConfigError(
      '--clusters is not supported: a build always holds every cluster (on the Postgres log a subset would skip the other clusters for good)',
    );
  }
  const known = new Set(['--projection', '--batch-size', '--keep-retired', '--batch-timeout-ms']);
  const unknown = argv.filter((a) => a.startsWith('--') && !known.has(a));
  if (unknown.length) throw new ConfigError(`unknown option ${unknown.join(', ')}`);
  const projection = get('--projection');
  const names = ALL_PROJECTIONS.map((p) => p.name);
  if (!projection) throw new ConfigError(`--projection is required: one of ${names.join(', ')}, or all`);
  if (projection !== 'all' && !names.includes(projection))
    throw new ConfigError(`--projection: unknown projection "${projection}"; one of ${names.join(', ')}, or all`);
  const projections = projection === 'all' ? names : [projection];
  const int = (flag: string, fallback: number, min: number, max: number) => {
    const raw = get(flag);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${flag} must be an integer ${min}..${max}`);
    return n;
  };
  return {
    projections,
    batchSize: int('--batch-size', 5000, 1, 50_000),
    keepRetired: int('--keep-retired', 0, 0, 100),
    batchTimeoutMs: int('--batch-timeout-ms', DEFAULT_BATCH_TIMEOUT_MS, 0, 86_400_000),
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const env = parseEnv(storageEnvSchema);
  // Progress goes to stderr; logs (stdout) only when something is wrong, unless LOG_LEVEL asks for more.
  const log = createLogger('replay', env.LOG_LEVEL === 'info' ? 'warn' : env.LOG_LEVEL);
  const storage = await openStorage(env, log, [projectorMigrations], { poolSize: 8, application: 'hadron-replay' });
  try {
    // Every projection at once: their consumers share one reader of the log (PostgresFanOut on the
    // Postgres log), so the log is read and parsed once for all of them.
    await Promise.all(
      args.projections.map(async (name) => {
        const result = await rebuildProjection(projectionByName(name), {
          pool: storage.pool,
          consumerFactory: () => storage.eventLog.consumer(storage.pool, storage.url),
          log,
          maxBatchSize: args.batchSize,
          batchTimeoutMs: args.batchTimeoutMs,
          keepRetiredBuilds: args.keepRetired,
          onProgress: (p) => process.stderr.write(`${formatProgress(name, p)}\n`),
        });
        process.stderr.write(
          `replay ${name}: ${result.events} events in ${result.seconds.toFixed(1)}s (${Math.round(result.events / Math.max(result.seconds, 0.001))} ev/s); ` +
            `read views now on ${result.build.schemaName}` +
            (result.previous ? `, replaced ${result.previous.schemaName}` : '') +
            (result.dropped.length ? `; dropped ${result.dropped.map((b) => b.schemaName).join(', ')}` : '') +
            '\n',
        );
      }),
    );
  } finally {
    await storage.close();
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(e instanceof ConfigError ? `replay: ${e.message}\n` : `replay failed: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
