import type { Pool } from 'pg';
import type { Logger } from '../logging/logger';
import type { EventLog, EventLogSettings } from './event-log.port';

export type { EventLog, EventLogSettings } from './event-log.port';
import { PostgresEventLogConsumer, PostgresEventLogProducer } from './postgres/postgres-event-log';

export function openEventLog(settings: EventLogSettings, logPool: Pool, log: Logger): EventLog {
  if (settings.kafkaBrokers?.length) {
    // Loaded lazily so a Postgres-only deployment never loads kafkajs.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { openKafkaEventLog } = require('./kafka/kafka-event-log') as typeof import('./kafka/kafka-event-log');
    return openKafkaEventLog(settings, log);
  }
  return {
    kind: 'postgres',
    producer: async () => new PostgresEventLogProducer(logPool),
    consumer: (pool, url) => new PostgresEventLogConsumer(pool, url, log),
    close: async () => undefined,
  };
}
