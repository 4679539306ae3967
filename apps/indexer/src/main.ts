import { z } from 'zod';
import { createLogger, envInt, openStorage, parseEnv, runProcess, startOpsServer, storageEnvShape, whenDatabaseAnswers } from '@hadron/platform';
import { indexerEnvShape } from './config/indexer.config';
import { startIndexer } from './indexer.app';
import { indexerMigrations } from './store/migrations';

/** The indexer as its own deployable: `npm run start:indexer`. /health, /health/ready, /metrics on OPS_PORT. */
const schema = z.object({ ...storageEnvShape, ...indexerEnvShape, OPS_PORT: envInt(0, 65535, 9464), OPS_HOST: z.string().default('0.0.0.0') });

runProcess(
  'indexer',
  () => createLogger('indexer'),
  async () => {
    const config = parseEnv(schema);
    const log = createLogger('indexer', config.LOG_LEVEL);
    const storage = await openStorage(config, log, [indexerMigrations], { application: 'hadron-indexer' });
    const indexer = await startIndexer(storage, config, log);
    const ops = await startOpsServer({
      port: config.OPS_PORT,
      host: config.OPS_HOST,
      registry: indexer.metrics.registry,
      ready: whenDatabaseAnswers(storage.pool, indexer.ready),
    });
    log.info({ opsPort: ops.port, clusters: config.INDEXER_CLUSTERS }, 'indexer running');
    return {
      stop: async () => {
        await indexer.stop();
        await ops.close();
        await storage.close();
      },
    };
  },
);
