import { resolve } from 'node:path';
import type { Pool } from 'pg';
import type { StorageConfig } from '../config/env';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../database/embedded-postgres';
import { runMigrations, type MigrationSet } from '../database/migrate';
import { createPool, endPool } from '../database/pool';
import { openEventLog, type EventLog } from '../event-log/event-log.factory';
import { eventLogMigrations } from '../event-log/migrations';
import type { Logger } from '../logging/logger';
import { onLastResort } from './last-resort';
import { atMost } from './at-most';

export interface Storage {
  url: string;
  pool: Pool;
  eventLog: EventLog;
  embedded?: EmbeddedPostgres;
  close(): Promise<void>;
}

/**
 * Connects a process to its database and event log: `DATABASE_URL` or an embedded Postgres,
 * `KAFKA_BROKERS` or the Postgres log. Applies the platform migrations and `extra` sets.
 * `freshEmbeddedDatabase`: an embedded database starts empty (the one it held is dropped).
 */
export async function openStorage(
  config: StorageConfig,
  log: Logger,
  extra: readonly MigrationSet[] = [],
  opts: { poolSize?: number; application?: string; freshEmbeddedDatabase?: boolean } = {},
): Promise<Storage> {
  let embedded: EmbeddedPostgres | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: resolve(config.PG_DATA_DIR),
      port: config.EMBEDDED_PG_PORT,
      freshDatabase: opts.freshEmbeddedDatabase,
      sharedBuffers: config.EMBEDDED_PG_SHARED_BUFFERS,
      log,
    });
    url = embedded.url;
  }
  const applied = await runMigrations(url, [eventLogMigrations, ...extra]);
  if (applied.length) log.info({ applied }, 'migrations applied');
  const application = opts.application ?? 'hadron';
  const pool = createPool(url, { max: opts.poolSize ?? 10, application });
  // However this process ends (short of SIGKILL), the embedded server it uses does not outlive it:
  // its own connections are given 2 s to close, then it is stopped unless another process uses it.
  const unregister = embedded
    ? onLastResort(async () => {
        await atMost(endPool(pool, 2_000), 2_000);
        await embedded.release({ ignoreApplication: application });
      })
    : () => undefined;
  const eventLog = openEventLog(
    {
      kafkaBrokers: config.KAFKA_BROKERS,
      kafkaClientId: config.KAFKA_CLIENT_ID,
      kafkaTopicPrefix: config.KAFKA_TOPIC_PREFIX,
      kafkaTopicPartitions: config.KAFKA_TOPIC_PARTITIONS,
    },
    pool,
    log,
  );
  log.info({ database: embedded ? 'embedded' : 'external', eventLog: eventLog.kind }, 'storage ready');
  return {
    url,
    pool,
    eventLog,
    embedded,
    close: async () => {
      unregister();
      await eventLog.close();
      await endPool(pool);
      // The last process using the embedded server stops it (also one adopted after a kill -9).
      if (embedded) await embedded.release();
    },
  };
}
