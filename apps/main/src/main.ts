/**
 * `npm start`: the one-process shape — indexer, projector and API over one storage (embedded
 * Postgres and the Postgres event log unless DATABASE_URL / KAFKA_BROKERS say otherwise). The
 * composition root: the only code that imports other apps, through their public src/index.ts.
 */
import { createLogger, parseEnv, runProcess } from '@hadron/platform';
import { mainEnvSchema, startAll } from './compose';

runProcess(
  'hadron',
  () => createLogger('hadron'),
  async () => {
    const config = parseEnv(mainEnvSchema);
    const log = createLogger('hadron', config.LOG_LEVEL);
    const running = await startAll(config, log);
    log.info(
      { port: running.port, clusters: config.INDEXER_CLUSTERS },
      `ready: http://127.0.0.1:${running.port}/pools${config.API_DOCS ? ' (docs at /docs)' : ''}`,
    );
    return running;
  },
);
