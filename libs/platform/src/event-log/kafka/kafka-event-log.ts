import { Kafka, Partitioners, logLevel, type Admin, type logCreator } from 'kafkajs';
import type { Logger } from '../../logging/logger';
import type { EventLog, EventLogSettings } from '../event-log.port';
import { KafkaEventLogConsumer } from './kafka-consumer';
import { KafkaEventLogProducer } from './kafka-producer';
import { KafkaTopics } from './kafka-topics';

export { kafkaGroupId } from './kafka-consumer';
export { deadLetterTopic, eventsTopic } from './kafka-topics';

/**
 * The Kafka event log (distributed shape). kafkajs is imported only in this folder.
 * Producers, consumers and the admin client share one kafkajs client per process.
 */
export function openKafkaEventLog(settings: EventLogSettings, log: Logger): EventLog {
  const brokers = settings.kafkaBrokers ?? [];
  if (brokers.length === 0) throw new Error('openKafkaEventLog needs at least one broker (KAFKA_BROKERS)');
  if (!Number.isInteger(settings.kafkaTopicPartitions) || settings.kafkaTopicPartitions < 1) {
    throw new Error(`KAFKA_TOPIC_PARTITIONS must be a positive integer, got ${settings.kafkaTopicPartitions}`);
  }
  const kafkaLog = log.child({ component: 'kafka' });
  const kafka = new Kafka({
    clientId: settings.kafkaClientId,
    brokers,
    logLevel: logLevel.INFO,
    logCreator: pinoLogCreator(kafkaLog),
  });

  let admin: Promise<Admin> | undefined;
  const getAdmin = (): Promise<Admin> => {
    admin ??= (async () => {
      const a = kafka.admin();
      await a.connect();
      return a;
    })();
    admin.catch(() => (admin = undefined));
    return admin;
  };
  const topics = new KafkaTopics(getAdmin, settings.kafkaTopicPartitions, kafkaLog);
  const producers = new Set<KafkaEventLogProducer>();

  return {
    kind: 'kafka',
    producer: async () => {
      const producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        // kafkajs 2's default (Java-compatible murmur2); named explicitly, which also silences its warning.
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      const p: KafkaEventLogProducer = new KafkaEventLogProducer(producer, topics, settings.kafkaTopicPrefix, () => producers.delete(p));
      producers.add(p);
      return p;
    },
    consumer: (pool) => new KafkaEventLogConsumer(kafka, getAdmin, topics, settings.kafkaTopicPrefix, pool, kafkaLog),
    close: async () => {
      await Promise.all([...producers].map((p) => p.close().catch(() => undefined)));
      const a = admin;
      admin = undefined;
      await a?.then((x) => x.disconnect()).catch(() => undefined);
    },
  };
}

/**
 * kafkajs logs into our pino logger. Its INFO lines (joins, starts, stops) are routine and go to
 * debug; we log the events that matter (joins with their assignment, seeks, crashes) ourselves.
 */
function pinoLogCreator(log: Logger): logCreator {
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = entry as typeof entry & { logger?: string };
      const fields = { namespace, ...extra };
      switch (level) {
        case logLevel.ERROR:
          return log.error(fields, message);
        case logLevel.WARN:
          return log.warn(fields, message);
        case logLevel.INFO:
          return log.debug(fields, message);
        default:
          return log.trace(fields, message);
      }
    };
}
