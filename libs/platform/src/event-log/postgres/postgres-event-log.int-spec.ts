import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createLogger } from '../../logging/logger';
import { createTestDatabase, type TestDatabase } from '../../testing/test-database';
import type { EventLogConsumer } from '../event-log.port';
import { eventLogMigrations } from '../migrations';
import { eventLogContract } from '../testing/event-log.contract';
import { GROUP_LOCK_KEY, PostgresEventLogConsumer, PostgresEventLogProducer } from './postgres-event-log';
import { PostgresFanOut } from './postgres-fan-out';

const log = createLogger('test', 'silent');

eventLogContract('postgres', async () => {
  const db = await createTestDatabase([eventLogMigrations]);
  return {
    db,
    producer: new PostgresEventLogProducer(db.pool),
    consumer: () => new PostgresEventLogConsumer(db.pool, db.url, log, 200),
    childEnv: { KAFKA_BROKERS: '' }, // the child must open the Postgres log even where Kafka is configured
    close: () => db.drop(),
  };
});

describe('postgres event log', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations]);
  });
  afterAll(() => db.drop());

  it('appends idempotently by event id', async () => {
    const producer = new PostgresEventLogProducer(db.pool);
    const events = sampleEventStream('devnet', [fakeAddress('idem')], 50);
    await producer.append(events);
    await producer.append(events.slice(10, 30));
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM event_log WHERE key = $1', [fakeAddress('idem')]);
    expect(rows[0].n).toBe('50');
  });

  it('refuses to append an event that breaks the contract, and appends nothing of that call', async () => {
    const producer = new PostgresEventLogProducer(db.pool);
    const [good, bad] = sampleEventStream('devnet', [fakeAddress('refuse')], 2);
    await expect(producer.append([good, { ...bad, pool: 'nope' }])).rejects.toThrow(/refusing to append invalid event/);
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM event_log WHERE key = $1', [fakeAddress('refuse')]);
    expect(rows[0].n).toBe('0');
  });

  it('wakes an idle consumer on append instead of polling', async () => {
    const consumer = new PostgresEventLogConsumer(db.pool, db.url, log, 60_000);
    const seen: string[] = [];
    await consumer.start({ group: 'idle', clusters: ['mainnet-beta'], handler: async (ev) => void seen.push(...ev.map((d) => d.event.id)) });
    await new Promise((r) => setTimeout(r, 300));
    const idleFetches = consumer.fetches;
    await new Promise((r) => setTimeout(r, 1500));
    expect(consumer.fetches).toBe(idleFetches); // no reads while nothing is appended
    const events = sampleEventStream('mainnet-beta', [fakeAddress('wake')], 3);
    await new PostgresEventLogProducer(db.pool).append(events);
    for (let i = 0; i < 100 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(events.map((e) => e.id));
    await consumer.stop();
  });

  it('keeps one active consumer per group; a standby takes over when it stops', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('standby')], 40);
    await new PostgresEventLogProducer(db.pool).append(events);
    const seenBy: Record<string, number> = { a: 0, b: 0 };
    const handler = (who: 'a' | 'b') => async (ev: readonly unknown[]) => void (seenBy[who] += ev.length);
    const a = new PostgresEventLogConsumer(db.pool, db.url, log, 200);
    const b = new PostgresEventLogConsumer(db.pool, db.url, log, 200);
    await a.start({ group: 'standby', clusters: ['devnet'], handler: handler('a') });
    await new Promise((r) => setTimeout(r, 500));
    await b.start({ group: 'standby', clusters: ['devnet'], handler: handler('b') });
    await new Promise((r) => setTimeout(r, 500));
    expect(seenBy.b).toBe(0);
    const total = seenBy.a;
    await a.stop();
    await new PostgresEventLogProducer(db.pool).append(sampleEventStream('devnet', [fakeAddress('standby')], 5, 1000));
    for (let i = 0; i < 100 && seenBy.b < 5; i++) await new Promise((r) => setTimeout(r, 50));
    expect(seenBy.b).toBe(5); // b resumed from a's checkpoint: only the new events
    expect(total).toBeGreaterThanOrEqual(40);
    await b.stop();
  });

  it('a consumer whose connection was lost while another took its group waits as a standby: no storm of connections', async () => {
    const group = 'lost-lock';
    const listening = async () =>
      (await db.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`hadron-consumer:${group}`])).rows;
    const sessions = async () =>
      Number((await db.pool.query<{ n: string }>('SELECT sessions AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n);
    const c = new PostgresEventLogConsumer(db.pool, db.url, log, 200);
    await c.start({ group, clusters: ['devnet'], handler: async () => undefined });
    const holder = await db.pool.connect();
    try {
      for (let i = 0; i < 100 && (await listening()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      const [active] = await listening();
      // Another session takes the group the moment the consumer's connection ends.
      const taken = holder.query(`SELECT pg_advisory_lock(${GROUP_LOCK_KEY})`, [group]);
      await db.pool.query('SELECT pg_terminate_backend($1)', [active.pid]);
      await taken;
      await new Promise((r) => setTimeout(r, 500));
      const before = await sessions();
      await new Promise((r) => setTimeout(r, 2500));
      const opened = (await sessions()) - before;
      // A standby tries the group every 2 s: one or two connections here, give or take the
      // statistics' flush (the busy loop opened thousands).
      expect({ opened: opened <= 5 ? 'a few' : opened }).toEqual({ opened: 'a few' });
    } finally {
      await holder.query(`SELECT pg_advisory_unlock(${GROUP_LOCK_KEY})`, [group]);
      holder.release();
      await c.stop();
    }
  });

  it('reads the next page ahead, yet a failed batch is retried from its start and every event applies once, in order', async () => {
    // A log of its own: the consumer reads everything of its clusters, and other tests append too.
    const own = await createTestDatabase([eventLogMigrations]);
    const events = sampleEventStream('mainnet-beta', [fakeAddress('ahead-1'), fakeAddress('ahead-2')], 95);
    await new PostgresEventLogProducer(own.pool).append(events);
    const applied: string[] = [];
    let batches = 0;
    const consumer = new PostgresEventLogConsumer(own.pool, own.url, log, 200);
    await consumer.start({
      group: 'read-ahead',
      clusters: ['mainnet-beta'],
      maxBatchSize: 10,
      handler: async (batch, tx) => {
        batches++;
        // Rows written in the batch's transaction: a failed attempt leaves none of them.
        await tx.query('SELECT 1');
        if (batches === 3 || batches === 7) throw Object.assign(new Error('deadlock detected'), { code: '40P01' }); // transient: retried
        applied.push(...batch.map((d) => d.event.id));
      },
    });
    for (let i = 0; i < 200 && applied.length < events.length; i++) await new Promise((r) => setTimeout(r, 50));
    await consumer.stop();
    try {
      expect(applied).toEqual(events.map((e) => e.id));
      expect(await consumer.lag()).toBe(0n);
    } finally {
      await own.drop();
    }
  });

  it('a group of one cluster that reads some types: applies exactly its records, and its progress counts only its cluster', async () => {
    const own = await createTestDatabase([eventLogMigrations]);
    const devnet = sampleEventStream('devnet', [fakeAddress('subset-d')], 40);
    const mainnet = sampleEventStream('mainnet-beta', [fakeAddress('subset-m')], 40);
    const producer = new PostgresEventLogProducer(own.pool);
    for (let i = 0; i < 40; i += 10) await producer.append([...devnet.slice(i, i + 10), ...mainnet.slice(i, i + 10)]);
    const applied: string[] = [];
    let counted = 0;
    const consumer = new PostgresEventLogConsumer(own.pool, own.url, log, 200);
    try {
      await consumer.start({
        group: 'subset',
        clusters: ['devnet'],
        types: ['SwapExecuted'],
        maxBatchSize: 3,
        handler: async (batch) => void applied.push(...batch.map((d) => d.event.id)),
        onCommitted: ({ count }) => void (counted += count),
      });
      for (let i = 0; i < 200 && (await consumer.lag()) > 0n; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await consumer.lag()).toBe(0n);
      expect(applied).toEqual(devnet.filter((e) => e.type === 'SwapExecuted').map((e) => e.id));
      expect(counted).toBe(devnet.length);
    } finally {
      await consumer.stop();
      await own.drop();
    }
  });
});

describe('postgres consumers at the log tail (onTail)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations]);
  });
  afterAll(() => db.drop());

  const kinds: Array<[string, () => EventLogConsumer]> = [
    ['a lone consumer', () => new PostgresEventLogConsumer(db.pool, db.url, log, 60_000)],
    ['a fan-out member', () => new PostgresFanOut(db.pool, db.url, log, 60_000).consumer()],
  ];
  it.each(kinds)('%s says when a read found nothing more: after a last batch that was full, and again after new events', async (name, make) => {
    // A log of exactly two full batches: no short batch tells the group it reached the end, the
    // empty read after it does. The idle poll is a minute: only an append wakes the consumer.
    const pool = fakeAddress(`tail ${name}`);
    const events = sampleEventStream('devnet', [pool], 45);
    const producer = new PostgresEventLogProducer(db.pool);
    await db.pool.query('TRUNCATE event_log');
    await producer.append(events.slice(0, 40));
    const seen: string[] = [];
    const atTail: number[] = [];
    const consumer = make();
    await consumer.start({
      group: `tail ${name}`,
      clusters: ['devnet'],
      maxBatchSize: 20,
      handler: async (batch) => void seen.push(...batch.map((d) => d.event.id)),
      onTail: () => atTail.push(seen.length),
    });
    try {
      const until = async (what: string, done: () => boolean) => {
        for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
        if (!done()) throw new Error(`timed out waiting for ${what}`);
      };
      await until('the tail of 40 events', () => atTail.length > 0);
      expect(atTail).toEqual([40]);
      expect(seen).toEqual(events.slice(0, 40).map((e) => e.id));
      await producer.append(events.slice(40));
      await until('the tail of 45 events', () => atTail.length > 1);
      expect(atTail).toEqual([40, 45]);
      expect(seen).toEqual(events.map((e) => e.id));
    } finally {
      await consumer.stop();
    }
  });
});
