import { z } from 'zod';
import { createLogger, openStorage, parseEnv, runProcess, storageEnvShape } from '@hadron/platform';
import { apiEnvShape } from './api.config';
import { createApiApp } from './api.module';

const schema = z.object({ ...storageEnvShape, ...apiEnvShape });

// The API only reads: the projector owns the read schema and migrates it. Until the projector has
// run once against this database, /health/ready answers 503.
runProcess('api', () => createLogger('api'), async () => {
  const config = parseEnv(schema);
  const log = createLogger('api', config.LOG_LEVEL);
  const storage = await openStorage(config, log, [], { application: 'hadron-api', poolSize: 20 });
  const app = await createApiApp({ pool: storage.pool, config, logger: log });
  await app.listen(config.PORT, config.HOST);
  log.info({ port: config.PORT, host: config.HOST }, 'api listening');
  return {
    stop: async () => {
      await app.close();
      await storage.close();
    },
  };
});
