import { z } from 'zod';
import { createLogger, openStorage, parseEnv, runProcess, storageEnvShape } from '@hadron/platform';
import { apiEnvShape } from './api.config';
import { createApiApp } from './api.module';
import { openReadPool } from './database/read-pool';
import { drainApiApp } from './health/drain';
import { listenApi } from './health/listen';

const schema = z.object({ ...storageEnvShape, ...apiEnvShape });

// The API only reads: the projector owns the read schema and migrates it. Until the projector has
// run once against this database, /health/ready answers 503. On SIGTERM it drains (drainApiApp):
// not ready at once, still serving for API_SHUTDOWN_GRACE_SECONDS, then closed without dropping a request.
runProcess(
  'api',
  () => createLogger('api'),
  async () => {
    const config = parseEnv(schema);
    const log = createLogger('api', config.LOG_LEVEL);
    const storage = await openStorage(config, log, [], { application: 'hadron-api', poolSize: 20 });
    // Reads go to DATABASE_READ_URL's replica when set; the primary still migrates (replicas are read-only).
    const reads = openReadPool(storage.pool, config, log, { application: 'hadron-api', poolSize: 20 });
    const app = await createApiApp({ pool: reads.pool, config, logger: log });
    const { port, opsPort } = await listenApi(app, config);
    log.info({ port, host: config.HOST, opsPort, opsHost: opsPort === null ? undefined : config.API_OPS_HOST }, 'api listening');
    return {
      stop: async () => {
        await drainApiApp(app, config.API_SHUTDOWN_GRACE_SECONDS * 1000);
        await reads.close();
        await storage.close();
      },
    };
  },
);
