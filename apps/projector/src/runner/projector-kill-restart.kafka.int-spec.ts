import { randomBytes } from 'node:crypto';
import { createLogger, eventLogMigrations, openEventLog } from '@hadron/platform';
import { describeWithKafka } from '@hadron/platform/testing/kafka-test-gate';
import { createTestDatabase } from '@hadron/platform/testing/test-database';
import { projectorKillRestartContract } from '../../test-support/kill-restart.contract';
import { projectorMigrations } from '../migrations';

// The same kill -9 / restart body as over the Postgres log, on a real Kafka broker: records go
// through the Kafka producer, children consume their own consumer groups from fresh topics.
describeWithKafka('projector over Kafka', (brokers) => {
  projectorKillRestartContract(
    'kafka',
    async () => {
      const db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
      const prefix = `killtest-${randomBytes(4).toString('hex')}`;
      const settings = { kafkaBrokers: brokers, kafkaClientId: 'kill-test', kafkaTopicPrefix: prefix, kafkaTopicPartitions: 3 };
      const eventLog = openEventLog(settings, db.pool, createLogger('kill-test', 'warn'));
      const producer = await eventLog.producer();
      return {
        db,
        append: (records) => producer.appendRaw(records),
        childEnv: { KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_TOPIC_PARTITIONS: '3' },
        close: async () => {
          await eventLog.close();
          await db.drop();
        },
      };
    },
    { events: Number(process.env.KILL_TEST_EVENTS ?? 1_000_000), kills: Number(process.env.KILL_TEST_KILLS ?? 4), verbose: !!process.env.KILL_TEST_VERBOSE },
  );
});
