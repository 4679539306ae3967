import type { Pool } from 'pg';
import type { Logger } from '../logging/logger';
import type { EventLog, EventLogSettings } from './event-log.port';

export type { EventLog, EventLogSettings } from './event-log.port';
import { PostgresEventLogProducer } from './postgres/postgres-event-log';
import { PostgresFanOut } from './postgres/postgres-fan-out';

export function openEventLog(settings: EventLogSettings, logPool: Pool, log: Logger): EventLog {
  if (settings.kafkaBrokers?.length) {
    // Loaded lazily so a Postgres-only deployment never loads kafkajs.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { openKafkaEventLog } = require('./kafka/kafka-event-log') as typeof import('./kafka/kafka-event-log');
    return openKafkaEventLog(settings, log);
  }
  // Every consumer of one database reads the log through one reader: a page is read and parsed
  // once for all the groups (projections, builds) at that place in the log.
  const fanOuts = new Map<Pool, PostgresFanOut>();
  const fanOut = (pool: Pool, url: string) => {
    let f = fanOuts.get(pool);
    if (!f) fanOuts.set(pool, (f = new PostgresFanOut(pool, url, log)));
    return f;
  };
  return {
    kind: 'postgres',
    producer: async () => new PostgresEventLogProducer(logPool),
    consumer: (pool, url) => fanOut(pool, url).consumer(),
    close: async () => undefined,
  };
}
