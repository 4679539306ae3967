import { randomBytes } from 'node:crypto';
import type { Cluster, HadronEvent } from '@hadron/contracts';
import { createLogger, openEventLog, type DeliveredEvent, type Storage } from '@hadron/platform';
import { describeWithKafka } from '@hadron/platform/testing/kafka-test-gate';
import { startIndexer, type RunningIndexer } from '../../apps/indexer/src/index';
import {
  caughtUp,
  compareWithGroundTruth,
  readEventLog,
  simIndexerConfig,
  storageOf,
  useSimulatedCluster,
  waitFor,
  type SimulatedClusterFixture,
} from './indexer-harness';

/**
 * FENCED TAKEOVER: the active indexer's lock connection is terminated (pg_terminate_backend, as a
 * failover, a pooler or an operator would) while it backfills and a standby runs for the same
 * cluster. The process survives, stops appending, and stands by; the standby takes over; and the
 * log shows that the two never appended at the same time: in log order (per partition on Kafka),
 * the writer epoch (the lease epoch each append was fenced by) never goes down. The log still
 * equals the ground truth.
 */

const CLUSTER: Cluster = 'devnet';
const ENV = { INDEXER_CLUSTERS: CLUSTER, INDEXER_CHUNK_TXS: '40', INDEXER_REFRESH_SECONDS: '3600' };

/** What the log holds, in log order per partition, with the epoch each record was appended under. */
type Audit = Array<{ partition: number; epoch: bigint | undefined; event: HadronEvent }>;

async function takeover(
  fx: SimulatedClusterFixture,
  storage: Storage,
  opts: { midBackfill: () => Promise<boolean>; caughtUp: () => Promise<boolean>; audit: () => Promise<Audit> },
): Promise<void> {
  const first = await startIndexer(storage, simIndexerConfig(fx.sim, ENV), createLogger('first', process.env.TEST_LOG_LEVEL ?? 'error'));
  fx.indexer = first;
  let standby: RunningIndexer | undefined;
  try {
    await waitFor('the first indexer to hold the cluster', () => first.status()[0].active, 10_000, 20);
    standby = await startIndexer(storage, simIndexerConfig(fx.sim, ENV), createLogger('standby', process.env.TEST_LOG_LEVEL ?? 'error'));
    expect(standby.status()[0].active).toBe(false);
    await waitFor('the first appends (mid-backfill)', opts.midBackfill, 30_000, 5);
    // The holder's lock connection: the one that holds the advisory lock (a standby's probe, which
    // connects under the same name once a second and lets go at once, may be open at this moment too).
    const { rows } = await fx.db.pool.query<{ pid: number }>(
      `SELECT pg_terminate_backend(a.pid) AS ok, a.pid FROM pg_stat_activity a
        WHERE a.application_name = $1 AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted)`,
      [`hadron-indexer-lock:${CLUSTER}`],
    );
    expect(rows).toHaveLength(1);

    await waitFor('the standby to take over', () => standby!.status()[0].active, 10_000, 20);
    expect(first.status()[0].active).toBe(false); // alive, standing by
    fx.sim.advance('all', 20);
    await waitFor('caught up after the takeover', opts.caughtUp, 60_000, 200);
    expect(first.status()[0].active).toBe(false);

    const audit = await opts.audit();
    expect(audit.map((a) => a.epoch)).not.toContain(undefined);
    const partitions = [...new Set(audit.map((a) => a.partition))];
    for (const partition of partitions) {
      const epochs = audit.filter((a) => a.partition === partition).map((a) => a.epoch!);
      // Non-decreasing in log order: after the first record of epoch N+1 no record of epoch N appears.
      expect({ partition, backwards: epochs.findIndex((e, i) => i > 0 && e < epochs[i - 1]) }).toEqual({ partition, backwards: -1 });
    }
    const distinct = [...new Set(audit.map((a) => String(a.epoch)))].sort((a, b) => Number(BigInt(a) - BigInt(b)));
    expect(distinct.length).toBeGreaterThanOrEqual(2); // the first holder's, then the standby's
    const lease = await fx.db.pool.query<{ epoch: string }>('SELECT epoch FROM indexer.lease WHERE cluster = $1', [CLUSTER]);
    expect(distinct[distinct.length - 1]).toBe(lease.rows[0].epoch);
    // eslint-disable-next-line no-console
    console.log(
      JSON.stringify({
        partitions: partitions.length,
        total: audit.length,
        epochs: distinct.map((e) => [e, audit.filter((a) => String(a.epoch) === e).length]),
      }),
    );

    // Records re-derived by the new holder (same ids) may repeat on Kafka; consumers key by id.
    const seen = new Set<string>();
    const events = audit.map((a) => a.event).filter((e) => !seen.has(e.id) && !!seen.add(e.id));
    const cmp = compareWithGroundTruth(events, fx.sim.groundTruth(CLUSTER));
    expect(cmp.mismatches).toEqual([]);
  } finally {
    await standby?.stop();
  }
}

describe('fenced takeover on the Postgres log', () => {
  const fx = useSimulatedCluster({ seed: 'fenced-takeover', pools: 5, historySeconds: 300 });

  it('a lost lock connection hands the cluster to the standby; the two never append at once', async () => {
    const logged = async () => Number((await fx.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM event_log WHERE cluster = $1', [CLUSTER])).rows[0].n);
    await takeover(fx, storageOf(fx.db), {
      midBackfill: async () => (await logged()) > 50,
      caughtUp: () => caughtUp(fx.db, fx.sim, CLUSTER),
      audit: async () => {
        const { rows } = await fx.db.pool.query<{ writer_epoch: string | null }>('SELECT writer_epoch FROM event_log WHERE cluster = $1 ORDER BY seq', [
          CLUSTER,
        ]);
        const events = await readEventLog(fx.db, CLUSTER);
        return rows.map((r, i) => ({ partition: 0, epoch: r.writer_epoch === null ? undefined : BigInt(r.writer_epoch), event: events[i] }));
      },
    });
  }, 180_000);
});

describeWithKafka('fenced takeover on the Kafka log', (brokers) => {
  const fx = useSimulatedCluster({ seed: 'fenced-takeover-kafka', pools: 5, historySeconds: 300 });

  it('a lost lock connection hands the cluster to the standby; per partition, the two never append at once', async () => {
    const eventLog = openEventLog(
      { kafkaBrokers: brokers, kafkaClientId: 'fenced-takeover', kafkaTopicPrefix: `fenced-${randomBytes(4).toString('hex')}`, kafkaTopicPartitions: 3 },
      fx.db.pool,
      createLogger('kafka', 'silent'),
    );
    const storage: Storage = { url: fx.db.url, pool: fx.db.pool, eventLog, close: async () => undefined };
    const cursor = async () =>
      (
        await fx.db.pool.query<{ through_slot: string | null; cycle: unknown }>('SELECT through_slot, cycle FROM indexer.cluster_cursor WHERE cluster = $1', [
          CLUSTER,
        ])
      ).rows[0];
    try {
      await takeover(fx, storage, {
        // A chunk committed: its events are in the topic, and the backfill goes on.
        midBackfill: async () => Number((await cursor())?.through_slot ?? 0) > 0,
        caughtUp: async () => {
          const c = await cursor();
          const gaps = await fx.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM indexer.gap WHERE cluster = $1', [CLUSTER]);
          return (
            !!c && c.through_slot !== null && Number(c.through_slot) >= fx.sim.groundTruth(CLUSTER).head_slot && c.cycle === null && gaps.rows[0].n === '0'
          );
        },
        audit: async () => {
          // Everything in the cluster's topic, read by a consumer group of its own.
          const delivered: DeliveredEvent[] = [];
          const consumer = eventLog.consumer(fx.db.pool, fx.db.url);
          await consumer.start({ group: 'fence-audit', clusters: [CLUSTER], handler: async (events) => void delivered.push(...events) });
          try {
            await waitFor('the audit consumer to read the whole topic', async () => delivered.length > 0 && (await consumer.lag()) === 0n, 60_000, 200);
          } finally {
            await consumer.stop();
          }
          return delivered
            .sort((a, b) => a.position.partition - b.position.partition || Number(a.position.offset - b.position.offset))
            .map((d) => ({ partition: d.position.partition, epoch: d.writerEpoch, event: d.event }));
        },
      });
    } finally {
      await eventLog.close();
    }
  }, 240_000);
});
