import { Kafka, Partitioners, logLevel, type Admin, type logCreator } from 'kafkajs';
import type { Logger } from '../../logging/logger';
import { RepeatedWarnings } from '../../logging/repeats';
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
  const repeats = new RepeatedWarnings(kafkaLog);
  const flushRepeats = setInterval(() => repeats.flush(), REPEAT_FLUSH_MS).unref();
  const kafka = new Kafka({
    clientId: settings.kafkaClientId,
    brokers,
    logLevel: logLevel.INFO,
    logCreator: pinoLogCreator(kafkaLog, repeats),
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
    consumer: (pool) => new KafkaEventLogConsumer(kafka, getAdmin, topics, settings.kafkaTopicPrefix, pool, kafkaLog, repeats),
    close: async () => {
      await Promise.all([...producers].map((p) => p.close().catch(() => undefined)));
      const a = admin;
      admin = undefined;
      await a?.then((x) => x.disconnect()).catch(() => undefined);
      clearInterval(flushRepeats);
      repeats.recovered();
    },
  };
}

/** What kafkajs reports at ERROR although the client heals it by itself (a rejoin, a restart after a crash it logged): routine. */
const ROUTINE = /rebalanc|already exists|TOPIC_ALREADY_EXISTS|Restarting the consumer/i;
const TRANSIENT =
  /coordinator is (loading|not available)|not the correct coordinator|COORDINATOR_(LOAD_IN_PROGRESS|NOT_AVAILABLE)|NOT_COORDINATOR|leader not available|LEADER_NOT_AVAILABLE|NOT_LEADER|not the leader|leadership election|retrying|Connection (timeout|error)|ECONNREFUSED|ECONNRESET/i;

/**
 * The level a kafkajs entry deserves in our logs: its INFO lines (joins, starts, stops) are
 * routine and go to debug (we log the events that matter ourselves); an ERROR that the client
 * heals by itself is info (a rebalance, a topic that exists) or warn (a coordinator loading, a
 * leader moving, a broker unreachable for now) — so an operator's error alerts mean errors.
 */
export function kafkaLogLevel(level: number, message: string, extra: Record<string, unknown>): 'error' | 'warn' | 'info' | 'debug' | 'trace' {
  if (level === logLevel.ERROR || level === logLevel.WARN) {
    const text = [message, extra.error, extra.type].filter((t) => typeof t === 'string').join(' ');
    if (ROUTINE.test(text)) return 'info';
    if (TRANSIENT.test(text) || level === logLevel.WARN) return 'warn';
    return 'error';
  }
  return level === logLevel.INFO ? 'debug' : 'trace';
}

/** How often kafkajs's repeated warnings that ended are reported when kafkajs has gone quiet. */
const REPEAT_FLUSH_MS = 5_000;

/**
 * kafkajs's entries at our level. Its warnings (a broker unreachable, a coordinator loading:
 * `kafkaLogLevel`) repeat for as long as the condition lasts, each client (producer, admin, every
 * consumer group) several times a second while a broker is down: each kind (namespace and message)
 * is written once per window, then counted (RepeatedWarnings). Errors are always written.
 */
function pinoLogCreator(log: Logger, repeats: RepeatedWarnings): logCreator {
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = entry as typeof entry & { logger?: string };
      const ours = kafkaLogLevel(level, message, extra);
      if (ours === 'warn') repeats.warn({ namespace, ...extra }, message, `${namespace}\0${message}`);
      else log[ours]({ namespace, ...extra }, message);
    };
}
