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
    const ids = new Set<string>();
    return {
      db,
      // Bulk append: COPY straight into the log table (seq keeps the order), with the type column;
      // like the producer, the Postgres log keeps one record per event id.
      append: async (records) => {
        const fresh = records.filter((r) => !ids.has(r.id) && ids.add(r.id));
        const client = await db.pool.connect();
        try {
          await copyFrom(client, 'COPY event_log (id, cluster, key, payload, type) FROM STDIN', [
            Buffer.from(fresh.map((r) => copyLine([r.id, r.cluster, r.key, r.payload, r.type ?? null])).join('')),
          ]);
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
