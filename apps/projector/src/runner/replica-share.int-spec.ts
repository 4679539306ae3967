import { randomBytes } from 'node:crypto';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createLogger, eventLogMigrations, openEventLog, type EventLog, type Logger, type Storage } from '@hadron/platform';
import { describeWithKafka } from '@hadron/platform/testing/kafka-test-gate';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { until } from '../../test-support/runner-harness';
import { projectorMigrations } from '../migrations';
import { ALL_PROJECTIONS } from '../projections';
import { startProjector, type RunningProjector } from '../projector.app';

/**
 * SEEING EVERY REPLICA. Each projector replica reports its own share of each consumer group —
 * the partitions it owns and their lag — in its metrics and readiness detail; a replica that owns
 * nothing has no lag series at all (never "lag 0").
 */

type Owned = { projection: string; group: string; lag: string; owned: Array<{ topic: string; partition: number; lag: string }>; idle?: true };

const config = { PROJECTOR_BATCH_SIZE: 500, PROJECTOR_BATCH_TIMEOUT_MS: 300_000, READY_MAX_LAG: 1_000_000 };
/** Consumer groups a projector runs: one per projection of the registry. */
const PROJECTIONS = ALL_PROJECTIONS.length;

/** `hadron_projector_partitions_owned` and `…_partition_lag_events` series of one replica's scrape. */
async function scrape(p: RunningProjector): Promise<{ owned: Map<string, number>; lagSeries: string[] }> {
  const text = await p.metrics.registry.metrics();
  const owned = new Map<string, number>();
  for (const m of text.matchAll(/^hadron_projector_partitions_owned\{projection="([^"]+)",group="[^"]+",topic="([^"]+)"\} (\d+)$/gm))
    owned.set(`${m[1]} ${m[2]}`, Number(m[3]));
  const lagSeries = [
    ...text.matchAll(/^hadron_projector_partition_lag_events\{projection="([^"]+)",group="[^"]+",topic="([^"]+)",partition="(\d+)"\} \d+$/gm),
  ].map((m) => `${m[1]} ${m[2]}/${m[3]}`);
  return { owned, lagSeries };
}

async function detail(p: RunningProjector): Promise<Owned[]> {
  return (await p.ready()).detail as Owned[];
}

/** Partitions owned per projection and topic, from the readiness detail: `projection topic/partition`. */
const ownedKeys = (d: Owned[]) => d.flatMap((p) => p.owned.map((o) => `${p.projection} ${o.topic}/${o.partition}`)).sort();

function storageOf(db: TestDatabase, eventLog: EventLog): Storage {
  return { url: db.url, pool: db.pool, eventLog, close: async () => undefined };
}

describeWithKafka('projector replicas over Kafka', (brokers) => {
  let db: TestDatabase;
  let eventLog: EventLog;
  const lines: string[] = [];
  const logOf = (name: string): Logger => createLogger(name, 'info', { write: (s: string) => void lines.push(s) }, 'json');
  const running: RunningProjector[] = [];

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    const prefix = `replicas-${randomBytes(4).toString('hex')}`;
    // The log's consumers (kafkajs and ours) log through this one logger, captured at info.
    eventLog = openEventLog(
      { kafkaBrokers: brokers, kafkaClientId: 'replica-test', kafkaTopicPrefix: prefix, kafkaTopicPartitions: 6 },
      db.pool,
      logOf('replica-test'),
    );
    const producer = await eventLog.producer();
    // Enough pools (keys) that every partition of both topics holds records.
    const pools = Array.from({ length: 40 }, (_, i) => fakeAddress(`replica-pool-${i}`));
    await producer.append([...sampleEventStream('devnet', pools, 400), ...sampleEventStream('mainnet-beta', pools, 400)]);
    await producer.close();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    await eventLog?.close();
    await db?.drop();
  });

  it('splits each topic across the group: each replica reports the partitions it owns, together all 6, and lag only for those', async () => {
    const a = await startProjector(storageOf(db, eventLog), config, logOf('replica-a'));
    running.push(a);
    const all = (d: Owned[]) => ownedKeys(d).length === PROJECTIONS * 2 * 6; // projections × 2 topics × 6 partitions
    await until('replica a to own every partition', async () => all(await detail(a)), 60_000, 200);

    const b = await startProjector(storageOf(db, eventLog), config, logOf('replica-b'));
    running.push(b);
    // After the rebalance: each owns part of each group's topics, none twice, all of them together.
    const shared = await until(
      'the group to split between the replicas',
      async () => {
        const [da, db_] = [await detail(a), await detail(b)];
        const [ka, kb] = [ownedKeys(da), ownedKeys(db_)];
        if (ka.length === 0 || kb.length === 0 || ka.length + kb.length !== PROJECTIONS * 2 * 6) return false;
        return new Set([...ka, ...kb]).size === PROJECTIONS * 2 * 6 ? { da, db: db_, ka, kb } : false;
      },
      60_000,
      200,
    );
    for (const [d, keys] of [
      [shared.da, shared.ka],
      [shared.db, shared.kb],
    ] as const) {
      expect(keys.length).toBeGreaterThan(0);
      for (const p of d) expect(p.lag).toMatch(/^\d+$/); // the group's, as before
    }

    // Metrics say the same: per group and topic, the two replicas' counts add up to 6; lag series
    // exist exactly for the partitions each one owns.
    const [ma, mb] = [await scrape(a), await scrape(b)];
    const topics = [...new Set([...ma.owned.keys(), ...mb.owned.keys()])];
    expect(topics).toHaveLength(PROJECTIONS * 2);
    for (const t of topics) expect((ma.owned.get(t) ?? 0) + (mb.owned.get(t) ?? 0)).toBe(6);
    expect(ma.lagSeries.sort()).toEqual(ownedKeys(await detail(a)));
    expect(mb.lagSeries.sort()).toEqual(ownedKeys(await detail(b)));

    // One replica leaves: the other owns everything again. The rebalances were routine: nothing
    // about them was logged above info.
    await a.stop();
    running.splice(running.indexOf(a), 1);
    await until('replica b to own every partition', async () => all(await detail(b)), 60_000, 200);
    const rebalancing = lines.filter((l) => /rebalanc/i.test(l)).map((l) => JSON.parse(l) as { level: number });
    expect(rebalancing.length).toBeGreaterThan(0); // kafkajs reported them (as errors of its own)
    expect(rebalancing.filter((l) => l.level !== 30)).toEqual([]); // logged at info
    expect(lines.some((l) => l.includes('kafka consumer joined its group'))).toBe(true);
  }, 180_000);
});

describe('projector replicas over the Postgres log', () => {
  let db: TestDatabase;
  let eventLog: EventLog;
  const running: RunningProjector[] = [];
  const pools = Array.from({ length: 5 }, (_, i) => fakeAddress(`pg-replica-pool-${i}`));
  const append = async (count: number, offset: number) => {
    const producer = await eventLog.producer();
    await producer.append(sampleEventStream('devnet', pools, count, offset));
    await producer.close();
  };

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    eventLog = openEventLog(
      { kafkaClientId: 'replica-test', kafkaTopicPrefix: 'unused', kafkaTopicPartitions: 6 },
      db.pool,
      createLogger('replica-test', 'silent'),
    );
    await append(200, 0);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    await eventLog?.close();
    await db?.drop();
  });

  it('one replica holds each group; a standby owns nothing, says so, and has no lag series of its own', async () => {
    const silent = createLogger('replica', 'silent');
    const a = await startProjector(storageOf(db, eventLog), config, silent);
    running.push(a);
    await until('replica a to hold every group', async () => ownedKeys(await detail(a)).length === PROJECTIONS, 30_000, 100);
    const b = await startProjector(storageOf(db, eventLog), config, silent);
    running.push(b);

    // Events appended after the standby started: the group's lag it reports follows the active
    // consumer (it is not measured from where the standby started).
    await append(100, 200);
    await until('caught up', async () => (await detail(a)).every((p) => p.lag === '0' && p.owned[0]?.lag === '0'), 30_000, 100);
    const standby = await detail(b);
    expect(standby.map((p) => ({ owned: p.owned, idle: p.idle, lag: p.lag }))).toEqual(standby.map(() => ({ owned: [], idle: true, lag: '0' })));
    expect(ownedKeys(await detail(a))).toEqual(ALL_PROJECTIONS.map((p) => `${p.name} event_log/0`).sort());

    const [ma, mb] = [await scrape(a), await scrape(b)];
    expect([...ma.owned.values()]).toEqual(ALL_PROJECTIONS.map(() => 1));
    expect([...mb.owned.entries()].sort()).toEqual([...ma.owned.keys()].sort().map((k) => [k, 0]));
    expect(mb.lagSeries).toEqual([]);
    expect(ma.lagSeries.sort()).toEqual(ownedKeys(await detail(a)));

    // The active one stops: the standby takes every group over and says so.
    await a.stop();
    running.splice(running.indexOf(a), 1);
    await until('replica b to hold every group', async () => ownedKeys(await detail(b)).length === PROJECTIONS, 30_000, 100);
    expect((await scrape(b)).lagSeries).toHaveLength(PROJECTIONS);
  }, 120_000);
});
