import type { HadronEvent } from '@hadron/contracts';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createPool, endPool } from '../database/pool';
import { createLogger } from '../logging/logger';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { BatchTimeoutError, CheckpointedBatch, type PendingRecord } from './checkpointed-batch';
import type { BatchHandler } from './event-log.port';
import { eventLogMigrations } from './migrations';

/**
 * The batch deadline (ConsumeOptions.batchTimeoutMs) also covers getting a connection: a pool
 * with every client taken waits for a free one forever (no connectionTimeoutMillis), and the
 * batch with it. The consumer-level cases (a lock, a promise that never settles) are in the
 * event-log contract.
 */
describe('CheckpointedBatch: the deadline covers waiting for a connection', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations]);
    await db.pool.query('CREATE TABLE deadline_applied (event_id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await db?.drop();
  });

  const records = (events: readonly HadronEvent[]): PendingRecord[] =>
    events.map((e, i) => ({ position: { stream: 'event_log', partition: 0, offset: BigInt(i) }, payload: JSON.stringify(e) }));
  const recorder: BatchHandler = async (events, tx) => {
    await tx.query('INSERT INTO deadline_applied (event_id) SELECT unnest($1::text[])', [events.map((d) => d.event.id)]);
  };

  it('fails as overdue while the pool has no free client, hands the late client back, and applies the batch once one is free', async () => {
    const pool = createPool(db.url, { max: 1, application: 'deadline-test' });
    const held = await pool.connect();
    const events = sampleEventStream('devnet', [fakeAddress('deadline-connect')], 5);
    const batch = new CheckpointedBatch(pool, 'deadline-connect', recorder, createLogger('test', 'silent'), 300);
    try {
      const started = Date.now();
      await expect(batch.process('event_log', records(events))).rejects.toBeInstanceOf(BatchTimeoutError);
      expect(Date.now() - started).toBeLessThan(5_000);
      held.release();
      // The connection the overdue batch asked for arrives later and goes straight back to the pool.
      for (const end = Date.now() + 5_000; pool.waitingCount > 0 || pool.idleCount !== 1;) {
        if (Date.now() > end) throw new Error(`pool: ${pool.waitingCount} waiting, ${pool.idleCount} idle of ${pool.totalCount}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await batch.process('event_log', records(events));
      const { rows } = await db.pool.query<{ event_id: string }>('SELECT event_id FROM deadline_applied ORDER BY event_id');
      expect(rows.map((r) => r.event_id)).toEqual(events.map((e) => e.id).sort());
    } finally {
      await endPool(pool);
    }
  });
});
