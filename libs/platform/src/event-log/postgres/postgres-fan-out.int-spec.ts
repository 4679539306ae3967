import type { HadronEvent } from '@hadron/contracts';
import type { Pool } from 'pg';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import { createLogger } from '../../logging/logger';
import { createTestDatabase, type TestDatabase } from '../../testing/test-database';
import type { BatchHandler, EventLogConsumer } from '../event-log.port';
import { eventLogMigrations } from '../migrations';
import { eventLogContract } from '../testing/event-log.contract';
import { PostgresEventLogConsumer, PostgresEventLogProducer } from './postgres-event-log';
import { PostgresFanOut } from './postgres-fan-out';

const log = createLogger('test', 'silent');

// Every group of the suite reads through one fan-out reader, as the projector's builds do.
eventLogContract('postgres fan-out', async () => {
  const db = await createTestDatabase([eventLogMigrations]);
  const fanOut = new PostgresFanOut(db.pool, db.url, log, 200);
  return {
    db,
    producer: new PostgresEventLogProducer(db.pool),
    consumer: () => fanOut.consumer(),
    childEnv: { KAFKA_BROKERS: '' }, // the child opens the Postgres log, whose consumers are fan-out members
    close: () => db.drop(),
  };
});

describe('postgres fan-out', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase([eventLogMigrations]);
  });
  afterEach(() => db.drop());

  const until = async (what: string, probe: () => boolean | Promise<boolean>) => {
    const end = Date.now() + 30_000;
    while (!(await probe())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const recorder =
    (into: string[]): BatchHandler =>
    async (batch) =>
      void into.push(...batch.map((d) => d.event.id));
  /**
   * `pool`, whose reads of log pages (the reader's rowMode 'array' queries) are first shown to
   * `onRead` with where they start: an error it returns is what the read gives instead.
   */
  const watchPageReads = (pool: Pool, onRead: (from: string) => Error | undefined): Pool =>
    new Proxy(pool, {
      get(target, prop) {
        if (prop === 'query')
          return (config: unknown, ...rest: unknown[]) => {
            const c = config as { rowMode?: string; values?: unknown[] } | null;
            const failure = c?.rowMode === 'array' ? onRead(String(c.values?.[0])) : undefined;
            if (failure) return Promise.reject(failure);
            return (target.query as (...args: unknown[]) => unknown).call(target, config, ...rest);
          };
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  const ids = (events: readonly HadronEvent[], types?: readonly string[]) => events.filter((e) => !types || types.includes(e.type)).map((e) => e.id);
  /** What a handler awaits to stand for a batch stuck on a lock: `passed` settles once the test calls `open()`. */
  const gate = () => {
    let open!: () => void;
    const passed = new Promise<void>((r) => (open = r));
    return { passed, open };
  };

  it('reads each page once for the groups at the same place, and each group applies exactly its types, in order', async () => {
    const events = sampleEventStream('mainnet-beta', [fakeAddress('fan-1'), fakeAddress('fan-2')], 200);
    await new PostgresEventLogProducer(db.pool).append(events);
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 60_000);
    const groups = [
      { group: 'all', types: undefined, seen: [] as string[] },
      { group: 'swaps', types: ['SwapExecuted'], seen: [] as string[] },
      { group: 'oracle', types: ['MidpriceUpdated', 'PoolDiscovered'], seen: [] as string[] },
    ];
    const consumers: EventLogConsumer[] = [];
    for (const g of groups) {
      const c = fanOut.consumer();
      consumers.push(c);
      await c.start({ group: g.group, clusters: ['mainnet-beta', 'devnet'], types: g.types, maxBatchSize: 20, handler: recorder(g.seen) });
    }
    try {
      await until('every group caught up', async () => (await Promise.all(consumers.map((c) => c.lag()))).every((l) => l === 0n));
      for (const g of groups) expect(g.seen).toEqual(ids(events, g.types));
      // 200 records in pages of 20 (plus read-ahead and the empty page at the end), not once per group.
      expect(fanOut.fetches).toBeLessThanOrEqual(14);
    } finally {
      await Promise.all(consumers.map((c) => c.stop()));
    }
  });

  /**
   * `events` in the log, read from the start by two groups through one fan-out whose page reads
   * are recorded, in pages of 10: `steady` applies every batch, `odd` runs `onBatch(n)` before its
   * n-th batch (it may throw). Once both caught up: what each applied, in order, and where each
   * page read that held records started (not the ones at the log's tail).
   */
  const twoGroupsCaughtUp = async (
    events: readonly HadronEvent[],
    steady: { group: string; types?: string[] },
    odd: { group: string; onBatch: (n: number) => Promise<unknown> | void },
  ) => {
    await new PostgresEventLogProducer(db.pool).append(events);
    const readFrom: string[] = [];
    const fanOut = new PostgresFanOut(
      watchPageReads(db.pool, (from) => void readFrom.push(from)),
      db.url,
      log,
      60_000,
    );
    const seen = { steady: [] as string[], odd: [] as string[], batches: 0 };
    const consumers = [fanOut.consumer(), fanOut.consumer()];
    await consumers[0].start({ ...steady, clusters: ['devnet'], maxBatchSize: 10, handler: recorder(seen.steady) });
    await consumers[1].start({
      group: odd.group,
      clusters: ['devnet'],
      maxBatchSize: 10,
      handler: async (batch) => {
        await odd.onBatch(++seen.batches);
        seen.odd.push(...batch.map((d) => d.event.id));
      },
    });
    try {
      await until('both caught up', async () => (await Promise.all(consumers.map((c) => c.lag()))).every((l) => l === 0n));
    } finally {
      await Promise.all(consumers.map((c) => c.stop()));
    }
    const { rows } = await db.pool.query<{ tail: string }>('SELECT (max(seq) + 1)::text AS tail FROM event_log');
    return { ...seen, pages: readFrom.filter((from) => from !== rows[0].tail) };
  };

  it('a group that failed a batch finds its pages read ahead when it retries: no page is read twice', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('retry-1')], 60);
    // Its second batch fails once: it backs off, the other group goes on without it (it is not waited for).
    const run = await twoGroupsCaughtUp(
      events,
      { group: 'fast' },
      {
        group: 'failing',
        onBatch: (n) => {
          if (n === 2) throw new Error('injected failure');
        },
      },
    );
    expect(run.steady).toEqual(ids(events));
    expect(run.odd).toEqual(ids(events));
    expect(run.batches).toBeGreaterThan(6); // the failed batch, and its retry
    // The group at the tail reads it again each round; every page that holds records is read
    // once. Before, the group that retried read again the pages the other group had been served meanwhile.
    expect(run.pages).toHaveLength(6);
    expect(new Set(run.pages).size).toBe(6);
  });

  it('replaying groups wait for one slow on a batch: none runs ahead in pages of its own types, each page is read once', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('straggle-1')], 120);
    // As in a replay of every projection: one build reads only swaps, one reads every type; its
    // second batch takes longer than a round waits for a straggler (1 s).
    const run = await twoGroupsCaughtUp(
      events,
      { group: 'swaps', types: ['SwapExecuted'] },
      { group: 'slow', onBatch: (n) => (n === 2 ? new Promise((r) => setTimeout(r, 2500)) : undefined) },
    );
    expect(run.steady).toEqual(ids(events, ['SwapExecuted']));
    expect(run.odd).toEqual(ids(events));
    // One page of every type per 10 log records, each read once. Before, the swaps group went on
    // alone in pages of swaps only while the other was busy, and the log from there on was read twice.
    expect(new Set(run.pages).size).toBe(run.pages.length);
    expect(run.pages).toHaveLength(12);
  });

  it('a group stuck on a batch holds the replay of the others only so long: they go on and finish, it catches up once freed', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('stuck-1')], 120);
    await new PostgresEventLogProducer(db.pool).append(events);
    // Replaying groups wait at most 1.5 s for a batch of one behind them (10 s by default).
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 60_000, 1500);
    const lock = gate();
    const other: string[] = [];
    const stuck: string[] = [];
    let batches = 0;
    const consumers = [fanOut.consumer(), fanOut.consumer()];
    await consumers[0].start({ group: 'other', clusters: ['devnet'], maxBatchSize: 10, handler: recorder(other) });
    await consumers[1].start({
      group: 'stuck',
      clusters: ['devnet'],
      maxBatchSize: 10,
      handler: async (batch) => {
        // Its second batch waits (a lock, a slow disk) until the test frees it.
        if (++batches === 2) await lock.passed;
        stuck.push(...batch.map((d) => d.event.id));
      },
    });
    try {
      await until('the other group caught up', async () => (await consumers[0].lag()) === 0n);
      expect(other).toEqual(ids(events));
      expect(stuck).toHaveLength(10); // still in its second batch
      lock.open();
      await until('the stuck group caught up', async () => (await consumers[1].lag()) === 0n);
      expect(stuck).toEqual(ids(events));
    } finally {
      lock.open();
      await Promise.all(consumers.map((c) => c.stop()));
    }
  });

  it('a group that joins while every batch in flight is stuck is served: a round waits for stuck batches only so long', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('alone-1')], 60);
    await new PostgresEventLogProducer(db.pool).append(events);
    // Rounds end 1.5 s after they start when no batch of theirs has ended (10 s by default).
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 60_000, 1500);
    const lock = gate();
    const stuck: string[] = [];
    const late: string[] = [];
    let inBatch = false;
    const a = fanOut.consumer();
    await a.start({
      group: 'stuck',
      clusters: ['devnet'],
      maxBatchSize: 10,
      handler: async (batch) => {
        // Its first batch waits (a lock nobody releases, under a long batch deadline) until the test frees it.
        inBatch = true;
        await lock.passed;
        stuck.push(...batch.map((d) => d.event.id));
      },
    });
    const b = fanOut.consumer();
    try {
      await until('the stuck group in its batch', () => inBatch);
      await b.start({ group: 'late', clusters: ['devnet'], maxBatchSize: 10, handler: recorder(late) });
      await until('the group that joined caught up', async () => (await b.lag()) === 0n);
      expect(late).toEqual(ids(events));
      expect(stuck).toEqual([]);
      lock.open();
      await until('the stuck group caught up', async () => (await a.lag()) === 0n);
      expect(stuck).toEqual(ids(events));
    } finally {
      lock.open();
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a group that has reached the tail is not held by a replaying one it shares pages with: it keeps up while that one is slow', async () => {
    const producer = new PostgresEventLogProducer(db.pool);
    const history = sampleEventStream('devnet', [fakeAddress('shared-1')], 300);
    await producer.append(history);
    // Replaying groups would wait a minute for a batch of one behind them: far past `until`'s 30 s.
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 200, 60_000);
    // The live group's batches pass until the test closes its gate; the replaying group's second batch waits at its own.
    let liveGateClosed = false;
    const liveGate = gate();
    const replayGate = gate();
    const live: string[] = [];
    const replay: string[] = [];
    const a = fanOut.consumer();
    await a.start({
      group: 'live',
      clusters: ['devnet'],
      maxBatchSize: 50,
      handler: async (batch) => {
        if (liveGateClosed) await liveGate.passed;
        live.push(...batch.map((d) => d.event.id));
      },
    });
    // A second live group: its batches end, so the round ends while the first one's waits.
    const c = fanOut.consumer();
    await c.start({ group: 'other', clusters: ['devnet'], maxBatchSize: 50, handler: async () => undefined });
    await until('both live groups at the tail', async () => live.length === history.length && (await a.lag()) === 0n && (await c.lag()) === 0n);
    // New events while the live group's next batch waits: a group replaying from the same place
    // starts meanwhile, so the two share full pages once the live one goes on.
    liveGateClosed = true;
    const more = sampleEventStream('devnet', [fakeAddress('shared-1')], 200, 1000);
    await producer.append(more);
    await until('the live group in its batch', () => a.lag().then((l) => l === BigInt(more.length)));
    await db.pool.query("INSERT INTO event_log_checkpoint (group_id, stream, partition, next_offset) VALUES ('replay', 'event_log', 0, $1)", [
      history.length + 1,
    ]);
    let replayBatches = 0;
    const b = fanOut.consumer();
    await b.start({
      group: 'replay',
      clusters: ['devnet'],
      maxBatchSize: 50,
      handler: async (batch) => {
        // Its second batch is slow until the test ends it.
        if (++replayBatches === 2) await replayGate.passed;
        replay.push(...batch.map((d) => d.event.id));
      },
    });
    try {
      await until('the replaying group past its first batch', () => replay.length >= 50);
      liveGate.open();
      await until('the replaying group in its slow batch', () => replayBatches === 2);
      await until('the live group applied the new events', () => live.length === history.length + more.length);
      expect(replayBatches).toBe(2); // still in its slow batch
      expect(live).toEqual(ids([...history, ...more]));
      replayGate.open();
      await until('the replaying group caught up', async () => (await b.lag()) === 0n);
      expect(replay).toEqual(ids(more));
    } finally {
      liveGate.open();
      replayGate.open();
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });

  it('while its database cannot be reached, retries about once a second, and a stop is not held up: no busy loop, no flood of log lines', async () => {
    const lines: string[] = [];
    const capture = createLogger('test', 'warn', { write: (line: string) => void lines.push(line) });
    // The log's reads would go to the test database; the reader's own connection (LISTEN and the
    // groups' locks) goes to a port where nothing listens, as after the server went away.
    const down = new URL(db.url);
    down.port = '1';
    const fanOut = new PostgresFanOut(db.pool, down.toString(), capture, 60_000);
    const c = fanOut.consumer();
    await c.start({ group: 'unreachable', clusters: ['devnet'], maxBatchSize: 10, handler: async () => undefined });
    await new Promise((r) => setTimeout(r, 2500));
    const stopping = Date.now();
    await c.stop();
    const stopMs = Date.now() - stopping;
    const retries = lines.filter((l) => l.includes('could not connect for its groups')).length;
    // 2.5 s at one attempt a second: 3, give or take one; the busy loop made thousands.
    expect({ retries: retries >= 2 && retries <= 5 ? 'a few' : retries, stopsWithinTheRetryPause: stopMs < 1000 }).toEqual({
      retries: 'a few',
      stopsWithinTheRetryPause: true,
    });
  });

  it('a page read ahead whose read failed is read again when its turn comes, not failed as a batch: every event once, in order', async () => {
    const events = sampleEventStream('devnet', [fakeAddress('flaky-1')], 100);
    await new PostgresEventLogProducer(db.pool).append(events);
    // The third page read (one read ahead) fails as a dropped connection would.
    let pageReads = 0;
    const flaky = watchPageReads(db.pool, () => (++pageReads === 3 ? new Error('connection terminated (injected)') : undefined));
    const fanOut = new PostgresFanOut(flaky, db.url, log, 60_000);
    const seen: string[] = [];
    const failures: string[] = [];
    const c = fanOut.consumer();
    await c.start({
      group: 'flaky',
      clusters: ['devnet'],
      maxBatchSize: 10,
      handler: recorder(seen),
      onError: ({ error }) => void failures.push(error.message),
    });
    try {
      await until('caught up', async () => seen.length === events.length && (await c.lag()) === 0n);
      expect(pageReads).toBeGreaterThan(3); // the read failed, and reading went on
      // Dropped as soon as it failed, so the round that needed the page read it again: no failed batch.
      expect(failures).toEqual([]);
      expect(seen).toEqual(ids(events));
    } finally {
      await c.stop();
    }
  });

  it('counts each log record once for a group that shares a page read from before its position (progress, metrics)', async () => {
    // Two groups of the same types, one checkpointed 25 records further: one cohort, whose pages
    // start where the group behind stands. The page's last row stands for the records of other
    // types it skipped, from the page's start: the group ahead must not count those before its position.
    await db.pool.query("INSERT INTO event_log_checkpoint (group_id, stream, partition, next_offset) VALUES ('ahead', 'event_log', 0, 26)");
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 60_000);
    const counted = { behind: 0, ahead: 0 };
    const seen = { behind: [] as string[], ahead: [] as string[] };
    const consumers: EventLogConsumer[] = [];
    for (const group of ['behind', 'ahead'] as const) {
      const c = fanOut.consumer();
      consumers.push(c);
      await c.start({
        group,
        clusters: ['mainnet-beta', 'devnet'],
        types: ['SwapExecuted'],
        maxBatchSize: 20,
        handler: recorder(seen[group]),
        onCommitted: ({ count }) => void (counted[group] += count),
      });
    }
    // Appended once both wait at their positions: the first round serves both from one page.
    const events = sampleEventStream('devnet', [fakeAddress('count-1'), fakeAddress('count-2')], 200);
    await new PostgresEventLogProducer(db.pool).append(events);
    try {
      await until('both groups caught up', async () => (await Promise.all(consumers.map((c) => c.lag()))).every((l) => l === 0n));
      const { rows } = await db.pool.query<{ all: number; past: number; swaps_past: number }>(
        "SELECT count(*)::int AS all, count(*) FILTER (WHERE seq >= 26)::int AS past, count(*) FILTER (WHERE seq >= 26 AND type = 'SwapExecuted')::int AS swaps_past FROM event_log",
      );
      expect(rows[0].all).toBe(200);
      expect(seen.behind).toEqual(ids(events, ['SwapExecuted']));
      expect(seen.ahead).toHaveLength(rows[0].swaps_past);
      expect(counted).toEqual({ behind: 200, ahead: rows[0].past });
    } finally {
      await Promise.all(consumers.map((c) => c.stop()));
    }
  });

  it('a group replaying from the start beside a live one: the live one keeps up meanwhile, both end with every event once', async () => {
    const producer = new PostgresEventLogProducer(db.pool);
    const history = sampleEventStream('devnet', [fakeAddress('live-1')], 300);
    await producer.append(history);
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 200);
    const live: string[] = [];
    const replay: string[] = [];
    const a = fanOut.consumer();
    await a.start({ group: 'live', clusters: ['devnet'], maxBatchSize: 50, handler: recorder(live) });
    await until('the live group at the head', () => live.length === history.length);
    // A new build: slow batches of 5 from offset 0, while events keep arriving.
    const b = fanOut.consumer();
    await b.start({
      group: 'rebuild',
      clusters: ['devnet'],
      maxBatchSize: 5,
      handler: async (batch, tx) => {
        await tx.query('SELECT pg_sleep(0.02)');
        replay.push(...batch.map((d) => d.event.id));
      },
    });
    const more = sampleEventStream('devnet', [fakeAddress('live-1')], 20, 1000);
    try {
      await producer.append(more);
      await until('the live group applied the new events', () => live.length === history.length + more.length);
      expect(replay.length).toBeLessThan(history.length); // it was applied while the rebuild was still far behind
      await until('the rebuild caught up', async () => (await b.lag()) === 0n);
      expect(live).toEqual(ids([...history, ...more]));
      expect(replay).toEqual(ids([...history, ...more]));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('two members of one group in one reader: one is active, the other a standby until it stops', async () => {
    const producer = new PostgresEventLogProducer(db.pool);
    await producer.append(sampleEventStream('devnet', [fakeAddress('twin')], 20));
    const fanOut = new PostgresFanOut(db.pool, db.url, log, 200);
    const [byA, byB]: [string[], string[]] = [[], []];
    const a = fanOut.consumer();
    await a.start({ group: 'twin', clusters: ['devnet'], handler: recorder(byA) });
    await until('a applied the log', () => byA.length === 20);
    const b = fanOut.consumer();
    await b.start({ group: 'twin', clusters: ['devnet'], handler: recorder(byB) });
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect((await b.owned()).partitions).toEqual([]);
      await a.stop();
      const later = sampleEventStream('devnet', [fakeAddress('twin')], 5, 1000);
      await producer.append(later);
      await until('b took over', () => byB.length === 5);
      expect(byB).toEqual(ids(later));
    } finally {
      await b.stop();
    }
  });

  it('excludes a lone consumer of the same group: one of them is active, the other takes over when it stops', async () => {
    const producer = new PostgresEventLogProducer(db.pool);
    await producer.append(sampleEventStream('devnet', [fakeAddress('mix')], 30));
    const [byLone, byMember]: [string[], string[]] = [[], []];
    const lone = new PostgresEventLogConsumer(db.pool, db.url, log, 200);
    await lone.start({ group: 'mixed', clusters: ['devnet'], handler: recorder(byLone) });
    await until('the lone consumer applied the log', () => byLone.length === 30);
    const member = new PostgresFanOut(db.pool, db.url, log, 200).consumer();
    await member.start({ group: 'mixed', clusters: ['devnet'], handler: recorder(byMember) });
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect((await member.owned()).partitions).toEqual([]); // a standby
      await lone.stop();
      const later = sampleEventStream('devnet', [fakeAddress('mix')], 5, 1000);
      await producer.append(later);
      await until('the member took over', () => byMember.length === 5);
      expect(byMember).toEqual(ids(later));
    } finally {
      await member.stop();
    }
  });
});
