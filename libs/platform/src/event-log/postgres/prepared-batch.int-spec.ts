import type { HadronEvent } from '@hadron/contracts';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createLogger } from '../../logging/logger';
import { createTestDatabase, type TestDatabase } from '../../testing/test-database';
import { CheckpointedBatch, type PendingRecord } from '../checkpointed-batch';
import type { BatchHandler, DeliveredEvent, EventLogConsumer } from '../event-log.port';
import { eventLogMigrations } from '../migrations';
import { PG_STREAM, PostgresEventLogConsumer, PostgresEventLogProducer } from './postgres-event-log';
import { PostgresFanOut } from './postgres-fan-out';

const log = createLogger('test', 'silent');

/** What a handler with `prepare` saw: every batch's ids, and per batch the ids it was prepared for (null: none). */
interface Seen {
  batches: string[][];
  prepared: (string[] | null)[];
}

/** A handler whose `prepare` lists the batch's ids (or throws, when `failing`), recording what it was applied with. */
function preparingHandler(seen: Seen, failing = false): BatchHandler {
  const handler: BatchHandler = async (batch, _tx, prepared) => {
    seen.batches.push(batch.map((d) => d.event.id));
    seen.prepared.push(prepared === undefined ? null : (prepared as { ids: string[] }).ids);
  };
  handler.prepare = (events: readonly DeliveredEvent[]) => {
    if (failing) throw new Error('prepare failed');
    return { ids: events.map((d) => d.event.id) };
  };
  return handler;
}

const ids = (events: readonly HadronEvent[]) => events.map((e) => e.id);

const readers: [string, (db: TestDatabase) => EventLogConsumer][] = [
  ['the lone consumer', (db) => new PostgresEventLogConsumer(db.pool, db.url, log, 200)],
  ['a fan-out member', (db) => new PostgresFanOut(db.pool, db.url, log, 200).consumer()],
];

describe.each(readers)('prepared batches (BatchHandler.prepare): %s', (_name, reader) => {
  let db: TestDatabase;
  let consumer: EventLogConsumer | undefined;
  beforeEach(async () => {
    db = await createTestDatabase([eventLogMigrations]);
  });
  afterEach(async () => {
    await consumer?.stop();
    consumer = undefined;
    await db.drop();
  });

  const consumeAll = async (group: string, handler: BatchHandler, count: number, seen: Seen) => {
    consumer = reader(db);
    await consumer.start({ group, clusters: ['devnet'], maxBatchSize: 20, handler });
    const end = Date.now() + 30_000;
    while (seen.batches.flat().length < count) {
      if (Date.now() > end) throw new Error(`timed out: ${seen.batches.flat().length} of ${count} events applied`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  it('applies every batch after the first with what was prepared for exactly its events while the one before ran', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('prep-1'), fakeAddress('prep-2')], 200);
    await new PostgresEventLogProducer(db.pool).append(events);
    const seen: Seen = { batches: [], prepared: [] };
    await consumeAll('prepared', preparingHandler(seen), events.length, seen);

    expect(seen.batches.flat()).toEqual(ids(events));
    expect(seen.batches).toHaveLength(10);
    // The first page is not read ahead; every later one was, and its batch prepared meanwhile.
    expect(seen.prepared[0]).toBeNull();
    for (let i = 1; i < seen.batches.length; i++) expect(seen.prepared[i]).toEqual(seen.batches[i]);
  });

  it('a batch with a record to dead-letter, or whose prepare throws, runs without it and applies the same events', async () => {
    const pool = fakeAddress('prep-dlq');
    const good = sampleEventStream('devnet', [pool], 60);
    const producer = new PostgresEventLogProducer(db.pool);
    await producer.append(good.slice(0, 30));
    await producer.appendRaw([{ id: `${pool}:bad-json`, cluster: 'devnet', key: pool, payload: '{"type":"SwapExecuted",' }]);
    await producer.append(good.slice(30));
    const seen: Seen = { batches: [], prepared: [] };
    await consumeAll('prepared-dlq', preparingHandler(seen), good.length, seen);
    expect(seen.batches.flat()).toEqual(ids(good));
    // The page holding the invalid record (records 21–40 of the log) runs without a prepared batch.
    const withBad = seen.batches.findIndex((b) => b.includes(good[20].id));
    expect(seen.prepared[withBad]).toBeNull();
    for (const [i, p] of seen.prepared.entries()) if (p !== null) expect(p).toEqual(seen.batches[i]);
    const { rows } = await db.pool.query<{ event_id: string | null }>('SELECT event_id FROM event_dead_letter WHERE group_id = $1', ['prepared-dlq']);
    expect(rows).toHaveLength(1);

    await consumer!.stop();
    const failing: Seen = { batches: [], prepared: [] };
    await consumeAll('prepared-throws', preparingHandler(failing, true), good.length, failing);
    expect(failing.batches.flat()).toEqual(ids(good));
    expect(failing.prepared.every((p) => p === null)).toBe(true);
  });
});

describe('CheckpointedBatch.process with a prepared batch', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase([eventLogMigrations]);
  });
  afterEach(() => db.drop());

  const records = (events: readonly HadronEvent[], from: number): PendingRecord[] =>
    events.map((e, i) => ({
      position: { stream: PG_STREAM, partition: 0, offset: BigInt(from + i) },
      payload: JSON.stringify(e),
      parsed: { ok: true, event: e },
    }));

  it('uses it only when the batch is exactly its events: records already past the checkpoint make it run without', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('prep-cb')], 15);
    const seen: Seen = { batches: [], prepared: [] };
    const batch = new CheckpointedBatch(db.pool, 'prepared-cb', preparingHandler(seen), log);
    const first = records(events.slice(0, 10), 0);
    await batch.process(PG_STREAM, first, undefined, batch.prepare(first));
    // A redelivery overlapping what was committed: records 5–14, prepared for all ten.
    const overlap = records(events.slice(5), 5).map((r, i) => (i < 5 ? first[i + 5] : r));
    await batch.process(PG_STREAM, overlap, undefined, batch.prepare(overlap));

    expect(seen.batches).toEqual([ids(events.slice(0, 10)), ids(events.slice(10))]);
    expect(seen.prepared).toEqual([ids(events.slice(0, 10)), null]);
  });
});
