import { z } from 'zod';
import { createLogger, envInt, openStorage, parseEnv, runProcess, startOpsServer, storageEnvShape, whenDatabaseAnswers } from '@hadron/platform';
import { projectorMigrations } from './migrations';
import { projectorEnvShape, startProjector } from './projector.app';

const schema = z.object({ ...storageEnvShape, ...projectorEnvShape, OPS_PORT: envInt(0, 65535, 9465), OPS_HOST: z.string().default('0.0.0.0') });

runProcess(
  'projector',
  () => createLogger('projector'),
  async () => {
    const config = parseEnv(schema);
    const log = createLogger('projector', config.LOG_LEVEL);
    const storage = await openStorage(config, log, [projectorMigrations], { application: 'hadron-projector' });
    const projector = await startProjector(storage, config, log);
    const ops = await startOpsServer({
      port: config.OPS_PORT,
      host: config.OPS_HOST,
      registry: projector.metrics.registry,
      ready: whenDatabaseAnswers(storage.pool, projector.ready),
    });
    log.info({ opsPort: ops.port }, 'projector running');
    return {
      stop: async () => {
        await projector.stop();
        await ops.close();
        await storage.close();
      },
    };
  },
);
