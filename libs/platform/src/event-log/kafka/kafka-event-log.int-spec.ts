import { randomBytes } from 'node:crypto';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { ConfigResourceTypes, Kafka, logLevel, type Admin, type KafkaMessage } from 'kafkajs';
import type { Pool } from 'pg';
import { createLogger } from '../../logging/logger';
import { describeWithKafka } from '../../testing/kafka-test-gate';
import { createTestDatabase, type TestDatabase } from '../../testing/test-database';
import type { ConsumeFailure, EventLog, EventLogConsumer, EventLogSettings } from '../event-log.port';
import { eventLogMigrations } from '../migrations';
import { eventLogContract } from '../testing/event-log.contract';
import { deadLetterTopic, eventsTopic, kafkaGroupId, openKafkaEventLog } from './kafka-event-log';

const log = createLogger('test', 'silent');
const PARTITIONS = 3;
/** A fresh prefix per run: repeated runs against one broker never see each other's records or groups. */
const freshPrefix = (what: string) => `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}.${what}`;

describeWithKafka('kafka event log', (brokers) => {
  const settings = (prefix: string): EventLogSettings => ({
    kafkaBrokers: brokers,
    kafkaClientId: 'kafka-int-spec',
    kafkaTopicPrefix: prefix,
    kafkaTopicPartitions: PARTITIONS,
  });

  eventLogContract('kafka', async () => {
    const prefix = freshPrefix('contract');
    const db = await createTestDatabase([eventLogMigrations]);
    const eventLog = openKafkaEventLog(settings(prefix), log);
    return {
      db,
      producer: await eventLog.producer(),
      consumer: () => eventLog.consumer(db.pool, db.url),
      childEnv: { KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_TOPIC_PARTITIONS: String(PARTITIONS) },
      close: async () => {
        await eventLog.close();
        await db.drop();
      },
    };
  });

  describe('kafka specifics', () => {
    const prefix = freshPrefix('specific');
    let db: TestDatabase;
    let eventLog: EventLog;
    let kafka: Kafka;
    let admin: Admin;
    const consumers: EventLogConsumer[] = [];

    beforeAll(async () => {
      db = await createTestDatabase([eventLogMigrations]);
      eventLog = openKafkaEventLog(settings(prefix), log);
      kafka = new Kafka({ clientId: 'kafka-int-spec-inspect', brokers, logLevel: logLevel.NOTHING });
      admin = kafka.admin();
      await admin.connect();
    });
    afterEach(async () => {
      await Promise.all(consumers.splice(0).map((c) => c.stop()));
    });
    afterAll(async () => {
      await admin?.disconnect();
      await eventLog?.close();
      await db?.drop();
    });

    const startConsumer = async (group: string, pool: Pool = db.pool) => {
      const c = eventLog.consumer(pool, db.url);
      consumers.push(c);
      await c.start({ group, clusters: ['mainnet-beta', 'devnet'], handler: async () => undefined });
      return c;
    };

    it('creates every topic with the configured partitions, unlimited retention and no compaction', async () => {
      await startConsumer('topics'); // creates the event and DLQ topics of both clusters
      const topics = (['mainnet-beta', 'devnet'] as const).flatMap((c) => [eventsTopic(prefix, c), deadLetterTopic(prefix, c)]);
      expect(topics).toContain(`${prefix}.mainnet-beta.events`);
      expect(topics).toContain(`${prefix}.devnet.events.dlq`);

      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      expect(Object.fromEntries(meta.map((t) => [t.name, t.partitions.length]))).toEqual(Object.fromEntries(topics.map((t) => [t, PARTITIONS])));

      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms', 'cleanup.policy'] })),
      });
      for (const r of resources) {
        const config = Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue]));
        expect({ topic: r.resourceName, ...config }).toEqual({ topic: r.resourceName, 'retention.ms': '-1', 'cleanup.policy': 'delete' });
      }
    });

    it('tolerates several processes creating the same topics at once', async () => {
      const racePrefix = freshPrefix('race');
      const logs = [0, 1, 2].map(() => openKafkaEventLog(settings(racePrefix), log));
      try {
        const events = sampleEventStream('devnet', [fakeAddress(`race:${racePrefix}`)], 3);
        await Promise.all(logs.map(async (l) => (await l.producer()).append(events)));
        const offsets = await admin.fetchTopicOffsets(eventsTopic(racePrefix, 'devnet'));
        expect(offsets).toHaveLength(PARTITIONS);
        expect(offsets.reduce((n, o) => n + Number(o.high), 0)).toBe(9);
      } finally {
        await Promise.all(logs.map((l) => l.close()));
      }
    });

    it('keys records by pool: each pool lives in one partition, in append order, with its event-id header', async () => {
      const pools = Array.from({ length: 8 }, (_, i) => fakeAddress(`partition:${prefix}:${i}`));
      const events = sampleEventStream('mainnet-beta', pools, 240);
      const producer = await eventLog.producer();
      for (let i = 0; i < events.length; i += 50) await producer.append(events.slice(i, i + 50));

      const messages = await readTopic(kafka, eventsTopic(prefix, 'mainnet-beta'), events.length);
      const partitionsOf = new Map<string, Set<number>>();
      const idsOf = new Map<string, string[]>();
      for (const { partition, message } of messages) {
        const key = message.key!.toString();
        partitionsOf.set(key, (partitionsOf.get(key) ?? new Set()).add(partition));
        idsOf.set(key, [...(idsOf.get(key) ?? []), message.headers!['event-id']!.toString()]);
        expect(JSON.parse(message.value!.toString()).id).toBe(message.headers!['event-id']!.toString());
      }
      for (const pool of pools) {
        expect(partitionsOf.get(pool)?.size).toBe(1);
        expect(idsOf.get(pool)).toEqual(events.filter((e) => e.pool === pool).map((e) => e.id));
      }
      expect(new Set([...partitionsOf.values()].map((s) => [...s][0])).size).toBeGreaterThan(1); // keys do spread
    });

    it('delivers each (cluster, pool) in append order through the consumer, across appends and chunks', async () => {
      // The contract's order test with the same data, compared per (cluster, pool): one topic per
      // cluster means no order between the two clusters' topics, only within each.
      const pools = Array.from({ length: 4 }, (_, i) => fakeAddress(`delivery:${prefix}:${i}`));
      const events = [...sampleEventStream('mainnet-beta', pools, 120), ...sampleEventStream('devnet', pools, 80, 500)];
      const producer = await eventLog.producer();
      for (let i = 0; i < events.length; i += 37) await producer.append(events.slice(i, i + 37));
      const mine = new Set(pools);
      const seen: Array<{ cluster: string; pool: string; id: string }> = [];
      const c = eventLog.consumer(db.pool, db.url);
      consumers.push(c);
      await c.start({
        group: 'delivery',
        clusters: ['mainnet-beta', 'devnet'],
        maxBatchSize: 25,
        handler: async (batch) =>
          void seen.push(...batch.filter((d) => mine.has(d.event.pool)).map((d) => ({ cluster: d.event.cluster, pool: d.event.pool, id: d.event.id }))),
      });
      await waitFor(async () => (seen.length >= events.length ? true : undefined));
      const byClusterAndPool = (xs: ReadonlyArray<{ cluster: string; pool: string; id: string }>) => {
        const m = new Map<string, string[]>();
        for (const x of xs) m.set(`${x.cluster}/${x.pool}`, [...(m.get(`${x.cluster}/${x.pool}`) ?? []), x.id]);
        return m;
      };
      expect(seen).toHaveLength(events.length);
      expect(byClusterAndPool(seen)).toEqual(byClusterAndPool(events));
    });

    it('refuses to append an event that breaks the contract, and sends nothing of that call', async () => {
      const pool = fakeAddress(`refuse:${prefix}`);
      const [good, bad] = sampleEventStream('devnet', [pool], 2);
      const producer = await eventLog.producer();
      const before = await totalRecords(admin, eventsTopic(prefix, 'devnet'));
      await expect(producer.append([good, { ...bad, pool: 'nope' }])).rejects.toThrow(/refusing to append invalid event/);
      expect(await totalRecords(admin, eventsTopic(prefix, 'devnet'))).toBe(before);
    });

    it('copies a dead-lettered record to the DLQ topic with its reason, after the database commit', async () => {
      const pool = fakeAddress(`dlq:${prefix}`);
      const [good] = sampleEventStream('devnet', [pool], 1);
      const payload = '{"type":"SwapExecuted",';
      const producer = await eventLog.producer();
      await producer.appendRaw([{ id: `${pool}:broken`, cluster: 'devnet', key: pool, payload }]);
      await producer.append([good]);
      const group = 'dlq-topic';
      const c = await startConsumer(group);
      const dead = await waitFor(async () => {
        const { rows } = await db.pool.query<{ partition: number; log_offset: string; reason: string }>(
          'SELECT partition, log_offset, reason FROM event_dead_letter WHERE group_id = $1',
          [group],
        );
        return rows.length > 0 ? rows : undefined;
      });
      expect(dead).toHaveLength(1);

      const [copy] = await readTopic(kafka, deadLetterTopic(prefix, 'devnet'), 1);
      const header = (name: string) => copy.message.headers![name]?.toString();
      expect(copy.message.value!.toString()).toBe(payload);
      expect(copy.message.key!.toString()).toBe(pool);
      expect(header('reason')).toBe(dead[0].reason);
      expect(header('reason')).toContain('not JSON');
      expect(header('group')).toBe(group);
      expect(header('source-partition')).toBe(String(dead[0].partition));
      expect(header('source-offset')).toBe(dead[0].log_offset);

      await waitFor(async () => ((await c.lag()) === 0n ? true : undefined));
      // Kafka's committed offset follows the database checkpoint (committed right after it).
      const topic = eventsTopic(prefix, 'devnet');
      await waitFor(async () => {
        const [committed] = await admin.fetchOffsets({ groupId: kafkaGroupId(prefix, group), topics: [topic] });
        const { rows } = await db.pool.query<{ partition: number; next_offset: string }>(
          'SELECT partition, next_offset FROM event_log_checkpoint WHERE group_id = $1 AND stream = $2',
          [group, topic],
        );
        return rows.length > 0 && rows.every((r) => committed.partitions.find((p) => p.partition === r.partition)?.offset === r.next_offset) ? true : undefined;
      });
    });

    it('starts from the database checkpoint when it is ahead of Kafka, without fetching what it already did', async () => {
      const pool = fakeAddress(`seek:${prefix}`);
      await (await eventLog.producer()).append(sampleEventStream('mainnet-beta', [pool], 30));
      const topic = eventsTopic(prefix, 'mainnet-beta');
      const high = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)]));
      // As if a consumer committed its DB transaction for all but the last 5 records of each
      // partition and died before committing to Kafka: the group has no Kafka offset at all.
      const checkpoint = new Map([...high].map(([p, h]) => [p, h >= 5n ? h - 5n : 0n]));
      await db.pool.query(
        `INSERT INTO event_log_checkpoint (group_id, stream, partition, next_offset)
         SELECT 'seek', $1, p, o FROM unnest($2::int[], $3::bigint[]) AS t(p, o)`,
        [topic, [...checkpoint.keys()], [...checkpoint.values()].map(String)],
      );
      const delivered: Array<{ partition: number; offset: bigint }> = [];
      let applied = 0;
      const c = eventLog.consumer(db.pool, db.url);
      consumers.push(c);
      await c.start({
        group: 'seek',
        clusters: ['mainnet-beta'],
        handler: async (batch) => void (applied += batch.length),
        onCommitted: ({ positions }) => void delivered.push(...positions),
      });
      await waitFor(async () => ((await c.lag()) === 0n ? true : undefined));
      const expected = [...high.values()].reduce((n, h) => n + (h >= 5n ? 5 : Number(h)), 0);
      expect(applied).toBe(expected);
      // Nothing below the checkpoint was even fetched: the consumer sought there first.
      expect(delivered.filter((d) => d.offset < checkpoint.get(d.partition)!)).toEqual([]);
    });

    it('replays from the database when the database is behind Kafka (read tables rebuilt)', async () => {
      const topic = eventsTopic(prefix, 'mainnet-beta');
      const total = await totalRecords(admin, topic);
      let applied = 0;
      const handler = async (batch: readonly unknown[]) => void (applied += batch.length);
      const first = eventLog.consumer(db.pool, db.url);
      await first.start({ group: 'rebuild', clusters: ['mainnet-beta'], handler });
      await waitFor(async () => (applied === total ? true : undefined));
      await first.stop();
      // stop() committed the last chunk to the DB and then to Kafka: both say "everything".
      const [committed] = await admin.fetchOffsets({ groupId: kafkaGroupId(prefix, 'rebuild'), topics: [topic] });
      const high = await admin.fetchTopicOffsets(topic);
      const { rows } = await db.pool.query<{ partition: number; next_offset: string }>(
        "SELECT partition, next_offset FROM event_log_checkpoint WHERE group_id = 'rebuild' AND stream = $1",
        [topic],
      );
      // Keys hash to partitions by the random prefix, so a partition may hold nothing: there is
      // nothing to commit for it, and Kafka reports such a group offset as -1 (none).
      const filled = new Set(high.filter((h) => h.offset !== '0').map((h) => h.partition));
      const byPartition = (xs: ReadonlyArray<{ partition: number; offset: string }>) =>
        Object.fromEntries(xs.filter((x) => filled.has(x.partition)).map((x) => [x.partition, x.offset]));
      expect(filled.size).toBeGreaterThan(0);
      expect(byPartition(committed.partitions)).toEqual(byPartition(high));
      expect(byPartition(rows.map((r) => ({ partition: r.partition, offset: r.next_offset })))).toEqual(byPartition(high));
      for (const empty of high.filter((h) => !filled.has(h.partition))) {
        expect(['-1', '0']).toContain(committed.partitions.find((p) => p.partition === empty.partition)?.offset ?? '-1');
        expect(['0', undefined]).toContain(rows.find((r) => r.partition === empty.partition)?.next_offset);
      }

      await db.pool.query("DELETE FROM event_log_checkpoint WHERE group_id = 'rebuild'");
      applied = 0;
      const second = eventLog.consumer(db.pool, db.url);
      consumers.push(second);
      await second.start({ group: 'rebuild', clusters: ['mainnet-beta'], handler });
      await waitFor(async () => (applied === total ? true : undefined));
      // `applied` counts inside the batch's transaction: its checkpoint commits just after.
      await waitFor(async () => ((await second.lag()) === 0n ? true : undefined)).catch(() => undefined);
      expect(await second.lag()).toBe(0n);
    });

    it('keeps its partitions while a batch keeps failing: tried again in place after the backoff, no rejoin, applied once it passes', async () => {
      // Thrown to kafkajs, such a failure was retried within a fraction of a second, and every
      // sixth restarted the consumer, which rejoined its group (a rebalance) — in a database
      // outage, about twenty lines a second and a rebalance every second or two per group.
      const lines: Array<{ msg: string; group?: string; retryInMs?: number }> = [];
      const logged = openKafkaEventLog(settings(prefix), createLogger('stall', 'info', { write: (l: string) => void lines.push(JSON.parse(l)) }, 'json'));
      const pool = fakeAddress(`stall:${prefix}`);
      const events = sampleEventStream('devnet', [pool], 6);
      await (await logged.producer()).append(events);
      const failures: ConsumeFailure[] = [];
      const applied: string[] = [];
      let fixed = false;
      const c = logged.consumer(db.pool, db.url);
      try {
        await c.start({
          group: 'stall-in-place',
          clusters: ['devnet'],
          handler: async (batch) => {
            const ours = batch.filter((d) => d.event.pool === pool);
            if (!fixed && ours.length > 0) throw new Error('projection bug: cannot apply');
            applied.push(...ours.map((d) => d.event.id));
          },
          onError: (f) => failures.push(f),
        });
        await waitFor(async () => (failures.length >= 4 ? true : undefined));
        const ofGroup = (msg: string) => lines.filter((l) => l.msg === msg && l.group === 'stall-in-place');
        expect(failures.slice(0, 4).map((f) => [f.consecutiveFailures, f.transient])).toEqual([
          [1, false],
          [2, false],
          [3, false],
          [4, false],
        ]);
        expect(
          ofGroup('kafka consumer batch failed; will retry')
            .slice(0, 4)
            .map((l) => l.retryInMs),
        ).toEqual([500, 1000, 2000, 4000]);
        expect(ofGroup('kafka consumer joined its group')).toHaveLength(1);
        expect(lines.filter((l) => /crash|Restarting the consumer/i.test(l.msg))).toEqual([]);
        fixed = true;
        await waitFor(async () => (applied.length === events.length ? true : undefined));
        expect(applied).toEqual(events.map((e) => e.id));
        expect(ofGroup('kafka consumer joined its group')).toHaveLength(1);
      } finally {
        await c.stop();
        await logged.close();
      }
    });
  });
});

async function readTopic(kafka: Kafka, topic: string, count: number): Promise<Array<{ partition: number; message: KafkaMessage }>> {
  const consumer = kafka.consumer({
    groupId: `inspect-${randomBytes(4).toString('hex')}`,
    sessionTimeout: 10_000,
    heartbeatInterval: 1_000,
    maxWaitTimeInMs: 500,
  });
  const out: Array<{ partition: number; message: KafkaMessage }> = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let done!: () => void;
    const enough = new Promise<void>((r) => (done = r));
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        out.push({ partition, message });
        if (out.length >= count) done();
      },
    });
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`read ${out.length}/${count} from ${topic}`)), 30_000)));
    await Promise.race([enough, timeout]);
    return out;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
}

async function totalRecords(admin: Admin, topic: string): Promise<number> {
  return (await admin.fetchTopicOffsets(topic)).reduce((n, o) => n + Number(o.high), 0);
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`condition not met after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
