import type { HadronEvent } from '@hadron/contracts';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createPool, endPool } from '../database/pool';
import { createLogger } from '../logging/logger';
import { createTestDatabase, type TestDatabase } from '../testing/test-database';
import { BatchTimeoutError, CheckpointedBatch, MAX_DEADLINE_DOUBLINGS, type PendingRecord } from './checkpointed-batch';
import type { BatchHandler } from './event-log.port';
import { eventLogMigrations } from './migrations';

/**
 * The batch deadline (ConsumeOptions.batchTimeoutMs) where the pool runs out: the overdue batch
 * may hold its last client (its session is ended on a connection of its own), and getting a
 * connection is covered too (a pool with every client taken waits for a free one forever: no
 * connectionTimeoutMillis). The consumer-level cases (a lock, a promise that never settles) are in
 * the event-log contract.
 */
describe('CheckpointedBatch: the batch deadline and the pool', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations]);
    await db.pool.query('CREATE TABLE deadline_applied (event_id text PRIMARY KEY)');
  });
  afterAll(async () => {
    await db?.drop();
  });

  const records = (events: readonly HadronEvent[], from = 0, partition = 0): PendingRecord[] =>
    events.map((e, i) => ({ position: { stream: 'event_log', partition, offset: BigInt(from + i) }, payload: JSON.stringify(e) }));
  const recorder: BatchHandler = async (events, tx) => {
    await tx.query('INSERT INTO deadline_applied (event_id) SELECT unnest($1::text[])', [events.map((d) => d.event.id)]);
  };

  it('ends the overdue session on a connection of its own when the batch holds the pool’s last client', async () => {
    const pool = createPool(db.url, { max: 1, application: 'deadline-test' });
    const holder = await db.pool.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE deadline_applied IN ACCESS EXCLUSIVE MODE');
    const events = sampleEventStream('devnet', [fakeAddress('deadline-last-client')], 3);
    const pids: number[] = [];
    const stuck: BatchHandler = async (_events, tx) => {
      pids.push((await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
      await tx.query('SELECT count(*) FROM deadline_applied'); // waits on the holder's lock
    };
    try {
      const batch = new CheckpointedBatch(pool, 'deadline-last-client', stuck, createLogger('test', 'silent'), 300);
      const started = Date.now();
      await expect(batch.process('event_log', records(events))).rejects.toBeInstanceOf(BatchTimeoutError);
      // Not after the terminate's 5 s bound: through the pool, the terminate would wait for the
      // very client the overdue batch holds.
      expect(Date.now() - started).toBeLessThan(4_000);
      // Gone while the lock is still held: terminated, not unblocked.
      const gone = async () =>
        (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pids[0]])).rows[0].n === 0;
      for (const end = Date.now() + 3_000; !(await gone());) {
        if (Date.now() > end) throw new Error(`backend ${pids[0]} of the overdue batch is still there`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
      await endPool(pool);
    }
  });

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

  /** The deadline of each attempt of `batch` until one commits or `max` have failed. */
  const deadlines = async (run: () => Promise<unknown>, max: number): Promise<{ failed: number[]; next: number[]; committed: boolean }> => {
    const failed: number[] = [];
    const next: number[] = [];
    while (failed.length < max) {
      try {
        await run();
        return { failed, next, committed: true };
      } catch (e) {
        if (!(e instanceof BatchTimeoutError)) throw e;
        failed.push(e.timeoutMs);
        next.push(e.nextTimeoutMs);
      }
    }
    return { failed, next, committed: false };
  };

  it('doubles the deadline of a retried overdue batch until it commits, then starts again from the configured one', async () => {
    const pool = createPool(db.url, { max: 2, application: 'deadline-test' });
    const slow: BatchHandler = async (events, tx) => {
      await tx.query('SELECT pg_sleep(0.5)'); // work longer than 300 ms, shorter than 600
      await recorder(events, tx);
    };
    const batch = new CheckpointedBatch(pool, 'deadline-doubling', slow, createLogger('test', 'silent'), 300);
    const [first, second] = [
      sampleEventStream('devnet', [fakeAddress('deadline-doubling-1')], 4),
      sampleEventStream('devnet', [fakeAddress('deadline-doubling-2')], 4),
    ];
    try {
      expect(await deadlines(() => batch.process('event_log', records(first)), 5)).toEqual({ failed: [300], next: [600], committed: true });
      // Committed: the partition's next batch has 300 ms again (and fails once more, as long as the first).
      expect(await deadlines(() => batch.process('event_log', records(second, first.length)), 5)).toEqual({ failed: [300], next: [600], committed: true });
      const { rows } = await db.pool.query<{ event_id: string }>('SELECT event_id FROM deadline_applied WHERE event_id = ANY($1::text[]) ORDER BY event_id', [
        [...first, ...second].map((e) => e.id),
      ]);
      expect(rows.map((r) => r.event_id)).toEqual([...first, ...second].map((e) => e.id).sort());
    } finally {
      await endPool(pool);
    }
  });

  it('stops doubling at 8 times the configured deadline, and counts each partition on its own', async () => {
    const pool = createPool(db.url, { max: 2, application: 'deadline-test' });
    const hung: BatchHandler = async (_events, tx) => {
      await tx.query('SELECT pg_sleep(30)');
    };
    const batch = new CheckpointedBatch(pool, 'deadline-cap', hung, createLogger('test', 'silent'), 100);
    const events = sampleEventStream('devnet', [fakeAddress('deadline-cap')], 2);
    try {
      expect(MAX_DEADLINE_DOUBLINGS).toBe(3);
      expect(await deadlines(() => batch.process('event_log', records(events)), 5)).toEqual({
        failed: [100, 200, 400, 800, 800],
        next: [200, 400, 800, 800, 800],
        committed: false,
      });
      // Another partition's batch has not run past anything: the configured deadline.
      expect(await deadlines(() => batch.process('event_log', records(events, 0, 1)), 1)).toEqual({ failed: [100], next: [200], committed: false });
    } finally {
      await endPool(pool);
    }
  });
});
