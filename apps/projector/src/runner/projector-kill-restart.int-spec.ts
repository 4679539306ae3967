import { eventLogMigrations } from '@hadron/platform';
import { createTestDatabase } from '@hadron/platform/testing/test-database';
import { copyFrom, copyLine } from '../../test-support/copy-from';
import { projectorKillRestartContract } from '../../test-support/kill-restart.contract';
import { projectorMigrations } from '../migrations';

// The Postgres log; the Kafka adapter runs the same body with its own harness (append through its producer).
projectorKillRestartContract(
  'postgres',
  async () => {
    const db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    return {
      db,
      // Bulk append: COPY straight into the log table (ids are unique; seq keeps the order).
      append: async (records) => {
        const client = await db.pool.connect();
        try {
          await copyFrom(client, 'COPY event_log (id, cluster, key, payload) FROM STDIN', [Buffer.from(records.map((r) => copyLine([r.id, r.cluster, r.key, r.payload])).join(''))]);
        } finally {
          client.release();
        }
      },
      childEnv: { KAFKA_BROKERS: '' }, // children open the Postgres log even where Kafka is configured (CI)
      close: () => db.drop(),
    };
  },
  { events: Number(process.env.KILL_TEST_EVENTS ?? 1_000_000), kills: Number(process.env.KILL_TEST_KILLS ?? 4), verbose: !!process.env.KILL_TEST_VERBOSE },
);
