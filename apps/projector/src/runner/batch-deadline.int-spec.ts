import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createLogger, eventLogMigrations, openEventLog, type EventLog, type EventLogProducer } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { until } from '../../test-support/runner-harness';
import { BuildRegistry } from '../builds/build-registry';
import { projectorMigrations } from '../migrations';
import { quoteIdent } from '../sql/identifiers';
import { startProjector, type RunningProjector } from '../projector.app';

/**
 * A BATCH THAT NEVER ENDS (PROJECTOR_BATCH_TIMEOUT_MS). An operator holds an exclusive lock on the
 * swaps build's table (a long maintenance, a forgotten transaction): the projector's swaps batch
 * waits on it. Past the deadline the projector must say so (log line, `stalled` with the error in
 * its readiness, a `deadline` failure in its metrics) instead of waiting in silence, and once the lock goes it must catch up by
 * itself with every swap applied exactly once. The other projections keep going meanwhile.
 */

type Detail = Array<{ projection: string; lag: string; stalled: boolean; error?: string }>;

describe('projector: a batch past PROJECTOR_BATCH_TIMEOUT_MS', () => {
  let db: TestDatabase;
  let eventLog: EventLog;
  let producer: EventLogProducer;
  let projector: RunningProjector | undefined;
  const lines: string[] = [];
  // The consumers log through the event log's logger, the runner through the projector's: both captured.
  const log = createLogger('projector', 'info', { write: (s: string) => void lines.push(s) }, 'json');

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    // No brokers: the embedded default, the Postgres log.
    eventLog = openEventLog({ kafkaClientId: 'deadline-test', kafkaTopicPrefix: 'deadline-test', kafkaTopicPartitions: 1 }, db.pool, log);
    producer = await eventLog.producer();
  });
  afterAll(async () => {
    await projector?.stop();
    await producer?.close();
    await eventLog?.close();
    await db?.drop();
  });

  const detail = async () => (await projector!.ready()).detail as Detail;
  const swapsIn = async () => Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM read.swaps')).rows[0].n);

  it('reports the stuck batch, ends it, and catches up exactly once when the lock goes', async () => {
    const pools = Array.from({ length: 4 }, (_, i) => fakeAddress(`deadline-pool-${i}`));
    const first = sampleEventStream('mainnet-beta', pools, 60);
    const later = sampleEventStream('mainnet-beta', pools, 60, 60);
    const swaps = [...first, ...later].filter((e) => e.type === 'SwapExecuted').length;
    await producer.append(first);
    projector = await startProjector(
      { url: db.url, pool: db.pool, eventLog, close: async () => undefined },
      { PROJECTOR_BATCH_SIZE: 500, PROJECTOR_BATCH_TIMEOUT_MS: 1500, READY_MAX_LAG: 0 },
      log,
    );
    await until('the first events projected', async () => (await projector!.ready()).ready);

    const build = (await new BuildRegistry(db.pool).active('swaps'))!;
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${quoteIdent(build.schemaName)}.swaps IN ACCESS EXCLUSIVE MODE`);
      await producer.append(later);
      // While the lock is held: said in the log, and in readiness as a stalled swaps projection with the error.
      await until('the deadline logged', async () => lines.some((l) => l.includes('batch ran past its deadline') && l.includes(build.consumerGroup)), 30_000);
      const stuck = await until('swaps reported stalled', async () => (await detail()).find((p) => p.projection === 'swaps' && p.stalled), 30_000);
      expect(stuck.error).toContain('1500 ms deadline');
      const scrape = await projector.metrics.registry.metrics();
      expect(scrape).toMatch(/^hadron_projector_batch_failures_total\{projection="swaps",kind="deadline"\} [1-9]\d*$/m);
      expect((await projector.ready()).ready).toBe(false);
      // Not a projection the lock does not touch: midprice caught up meanwhile.
      await until('midprice caught up', async () => (await detail()).find((p) => p.projection === 'midprice' && p.lag === '0' && !p.stalled));
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }

    await until('every projection caught up and ready again', async () => (await projector!.ready()).ready, 60_000);
    expect(await swapsIn()).toBe(swaps);
  });
});
