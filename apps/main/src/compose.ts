import { z } from 'zod';
import { openStorage, storageEnvShape, type Logger, type Running } from '@hadron/platform';
import { apiEnvShape, createApiApp, drainApiApp, listenApi, openReadPool } from '../../api/src/index';
import { indexerEnvShape, indexerMigrations, startIndexer } from '../../indexer/src/index';
import { projectorEnvShape, projectorMigrations, startProjector } from '../../projector/src/index';

export const mainEnvSchema = z.object({ ...storageEnvShape, ...indexerEnvShape, ...projectorEnvShape, ...apiEnvShape });
export type MainConfig = z.infer<typeof mainEnvSchema>;

/**
 * Indexer, projector and API in one process over one storage. Started upstream-last so nothing
 * is appended before its consumer exists; stopped in the reverse order of the data flow: drain
 * the API (not ready at once, serving through API_SHUTDOWN_GRACE_SECONDS, then closed with its
 * requests in flight answered), stop indexing, drain the projector, close storage.
 */
export async function startAll(config: MainConfig, log: Logger, opts: { freshEmbeddedDatabase?: boolean } = {}): Promise<Running & { port: number }> {
  const storage = await openStorage(config, log, [projectorMigrations, indexerMigrations], { application: 'hadron', poolSize: 24, ...opts });
  const projector = await startProjector(storage, config, log);
  // The API part alone reads DATABASE_READ_URL's replica when set; indexer and projector stay on the primary.
  const reads = openReadPool(storage.pool, config, log, { application: 'hadron-api', poolSize: 20 });
  const api = await createApiApp({ pool: reads.pool, config, logger: log });
  const { port } = await listenApi(api, config);
  const indexer = await startIndexer(storage, config, log);
  return {
    port,
    stop: async () => {
      await drainApiApp(api, config.API_SHUTDOWN_GRACE_SECONDS * 1000);
      await indexer.stop();
      await projector.stop();
      await reads.close();
      await storage.close();
    },
  };
}
