/**
 * A consumer in its own process, for the kill -9 contract test. It applies every event with a
 * deliberately NON-idempotent insert, so a double application shows up as a duplicate row.
 * Env: DATABASE_URL, GROUP, POOLS (comma list of keys to record), SLOW_MS, plus the event-log
 * settings (KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, …; unset = Postgres log in DATABASE_URL).
 */
import { createPool } from '../../database/pool';
import { createLogger } from '../../logging/logger';
import { openEventLog } from '../event-log.factory';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const pool = createPool(url, { max: 4 });
  const log = createLogger('consume-child', 'warn');
  const slow = Number(process.env.SLOW_MS ?? '0');
  const pools = new Set((process.env.POOLS ?? '').split(','));
  const eventLog = openEventLog(
    {
      kafkaBrokers: process.env.KAFKA_BROKERS ? process.env.KAFKA_BROKERS.split(',') : undefined,
      kafkaClientId: 'contract-child',
      kafkaTopicPrefix: process.env.KAFKA_TOPIC_PREFIX ?? 'hadron',
      kafkaTopicPartitions: Number(process.env.KAFKA_TOPIC_PARTITIONS ?? '3'),
    },
    pool,
    log,
  );
  const consumer = eventLog.consumer(pool, url);
  // Installed before the consumer starts and kept (on, not once): a SIGTERM at any moment drains.
  let draining: Promise<void> | undefined;
  process.on('SIGTERM', () => {
    draining ??= started
      .then(() => consumer.stop())
      .then(() => eventLog.close())
      .then(() => pool.end())
      .then(() => process.exit(0));
  });
  const started = consumer.start({
    group: process.env.GROUP!,
    clusters: ['mainnet-beta', 'devnet'],
    maxBatchSize: Number(process.env.BATCH ?? '50'),
    handler: async (events, tx) => {
      const mine = events.filter((d) => pools.has(d.event.pool));
      if (mine.length === 0) return;
      await tx.query('INSERT INTO contract_applied (grp, event_id, pool) SELECT $1, unnest($2::text[]), unnest($3::text[])', [
        process.env.GROUP,
        mine.map((d) => d.event.id),
        mine.map((d) => d.event.pool),
      ]);
      if (slow) await tx.query('SELECT pg_sleep($1)', [slow / 1000]);
    },
  });
  await started;
  process.stdout.write('ready\n');
}

main().catch((e) => {
  process.stderr.write(`consume-child failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
