import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { HadronEvent } from '@hadron/contracts';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';
import type { TestDatabase } from '../../testing/test-database';
import { POISON_EVENT, type BatchHandler, type ConsumeFailure, type EventLogConsumer, type EventLogProducer } from '../event-log.port';

/** What an adapter provides to run the shared contract suite. */
export interface EventLogHarness {
  db: TestDatabase;
  producer: EventLogProducer;
  consumer(): EventLogConsumer;
  /** Environment that makes consume-child.ts open the same adapter and log. */
  childEnv: Record<string, string>;
  close(): Promise<void>;
}

const ROOT = resolve(__dirname, '../../../../..');
let runId = 0;

/**
 * The event-log contract (issue 2): per-key order, kill -9 mid-batch with nothing lost and
 * nothing applied twice, identical replay under a new group, dead-lettering without blocking,
 * and a drain on stop. Every adapter must pass it unchanged.
 */
export function eventLogContract(name: string, makeHarness: () => Promise<EventLogHarness>): void {
  describe(`event log contract: ${name}`, () => {
    let h: EventLogHarness;
    const running: EventLogConsumer[] = [];

    beforeAll(async () => {
      h = await makeHarness();
      await h.db.pool.query('CREATE TABLE contract_applied (n bigserial PRIMARY KEY, grp text NOT NULL, event_id text NOT NULL, pool text NOT NULL)');
      await h.db.pool.query('CREATE TABLE contract_gate (n int)');
    });
    afterEach(async () => {
      await Promise.all(running.splice(0).map((c) => c.stop()));
    });
    afterAll(async () => {
      await h?.close();
    });

    const uniquePools = (n: number) => Array.from({ length: n }, (_, i) => fakeAddress(`${name}:${++runId}:${i}:${Date.now()}`));
    const recorder = (group: string, pools: readonly string[]): BatchHandler => {
      const mine = new Set(pools);
      return async (events, tx) => {
        const ev = events.filter((d) => mine.has(d.event.pool));
        if (ev.length === 0) return;
        await tx.query('INSERT INTO contract_applied (grp, event_id, pool) SELECT $1, unnest($2::text[]), unnest($3::text[])', [
          group,
          ev.map((d) => d.event.id),
          ev.map((d) => d.event.pool),
        ]);
      };
    };
    const consume = async (
      group: string,
      handler: BatchHandler,
      maxBatchSize = 100,
      more: {
        types?: string[];
        onError?: (f: ConsumeFailure) => void;
        onCommitted?: (info: { count: number }) => void;
        onTail?: () => void;
        batchTimeoutMs?: number;
      } = {},
    ) => {
      const c = h.consumer();
      running.push(c);
      await c.start({ group, clusters: ['mainnet-beta', 'devnet'], handler, maxBatchSize, ...more });
      return c;
    };
    const deadLetters = async (group: string, ids: readonly string[]) =>
      (
        await h.db.pool.query<{ event_id: string; reason: string }>(
          'SELECT event_id, reason FROM event_dead_letter WHERE group_id = $1 AND event_id = ANY($2::text[]) ORDER BY log_offset',
          [group, ids],
        )
      ).rows;
    const until = async (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 60_000) => {
      const end = Date.now() + timeoutMs;
      while (!(await probe())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const applied = async (group: string) =>
      (await h.db.pool.query<{ event_id: string; pool: string }>('SELECT event_id, pool FROM contract_applied WHERE grp = $1 ORDER BY n', [group])).rows;
    const waitForCount = async (group: string, count: number, timeoutMs = 60_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const { rows } = await h.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM contract_applied WHERE grp = $1', [group]);
        if (Number(rows[0].n) >= count) return;
        if (Date.now() > until) throw new Error(`group ${group}: ${rows[0].n}/${count} events applied after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const byPool = (events: readonly { id?: string; event_id?: string; pool: string }[]) => {
      const m = new Map<string, string[]>();
      for (const e of events) m.set(e.pool, [...(m.get(e.pool) ?? []), (e.id ?? e.event_id)!]);
      return m;
    };

    it('delivers the events of each key in the order they were appended, across appends and clusters', async () => {
      // A pool lives on one cluster; each cluster's pools are distinct (Kafka has a topic per cluster).
      const pools = uniquePools(4);
      const devnetPools = uniquePools(3);
      const events = [...sampleEventStream('mainnet-beta', pools, 120), ...sampleEventStream('devnet', devnetPools, 80, 500)];
      for (let i = 0; i < events.length; i += 37) await h.producer.append(events.slice(i, i + 37));
      await consume('order', recorder('order', [...pools, ...devnetPools]), 25);
      await waitForCount('order', events.length);
      expect(byPool(await applied('order'))).toEqual(byPool(events));
    });

    it('says when it has applied everything the log held (onTail), and again after new events', async () => {
      const pools = uniquePools(1);
      const mine = new Set(pools);
      const events = sampleEventStream('mainnet-beta', pools, 45);
      await h.producer.append(events.slice(0, 40));
      let seen = 0;
      const atTail: number[] = [];
      const handler: BatchHandler = async (batch) => void (seen += batch.filter((d) => mine.has(d.event.pool)).length);
      await consume('tail', handler, 20, { onTail: () => atTail.push(seen) });
      await until('the tail after 40 events', () => atTail.includes(40));
      expect(atTail.every((n) => n <= 40)).toBe(true);
      await h.producer.append(events.slice(40));
      await until('the tail after 45 events', () => atTail.includes(45));
      expect(seen).toBe(45);
    });

    it('replays the whole history for a new group with identical results', async () => {
      const pools = uniquePools(3);
      const events = sampleEventStream('mainnet-beta', pools, 150);
      await h.producer.append(events);
      await consume('replay-a', recorder('replay-a', pools), 40);
      await waitForCount('replay-a', events.length);
      await consume('replay-b', recorder('replay-b', pools), 7);
      await waitForCount('replay-b', events.length);
      const a = await applied('replay-a');
      const b = await applied('replay-b');
      expect(b).toHaveLength(events.length);
      expect(byPool(b)).toEqual(byPool(a));
    });

    it('dead-letters invalid payloads with their reason and still processes the events behind them', async () => {
      const [pool] = uniquePools(1);
      const good = sampleEventStream('devnet', [pool], 6);
      await h.producer.append(good.slice(0, 3));
      await h.producer.appendRaw([
        { id: `${pool}:bad-json`, cluster: 'devnet', key: pool, payload: '{"type":"SwapExecuted",' },
        {
          id: `${pool}:bad-amount`,
          cluster: 'devnet',
          key: pool,
          payload: JSON.stringify({ ...good[1], id: `${pool}:bad-amount`, data: { ...(good[1] as HadronEvent & { data: object }).data, amountIn: '-5' } }),
        },
      ]);
      await h.producer.append(good.slice(3));
      await consume('dlq', recorder('dlq', [pool]));
      await waitForCount('dlq', good.length);
      expect((await applied('dlq')).map((r) => r.event_id)).toEqual(good.map((e) => e.id));
      const { rows } = await h.db.pool.query<{ event_id: string | null; reason: string }>(
        'SELECT event_id, reason FROM event_dead_letter WHERE group_id = $1 ORDER BY log_offset',
        ['dlq'],
      );
      expect(rows).toEqual([
        { event_id: null, reason: expect.stringContaining('not JSON') },
        { event_id: `${pool}:bad-amount`, reason: expect.stringContaining('data.amountIn') },
      ]);
    });

    it('dead-letters the events the projection cannot apply and keeps the rest of their batch, in order', async () => {
      const [pool] = uniquePools(1);
      const events = sampleEventStream('mainnet-beta', [pool], 10);
      const poison = [events[4].id, events[7].id];
      await h.producer.append(events);
      const record = recorder('poison', [pool]);
      await consume('poison', async (batch, tx) => {
        if (batch.some((d) => poison.includes(d.event.id))) throw Object.assign(new Error('cannot apply this one'), { [POISON_EVENT]: true });
        await record(batch, tx);
      });
      await waitForCount('poison', events.length - 2);
      expect((await applied('poison')).map((r) => r.event_id)).toEqual(events.filter((e) => !poison.includes(e.id)).map((e) => e.id));
      // (Other tests' invalid payloads are dead-lettered for this group too; look at this pool's events.)
      const { rows } = await h.db.pool.query(
        'SELECT event_id, reason FROM event_dead_letter WHERE group_id = $1 AND event_id = ANY($2::text[]) ORDER BY log_offset',
        ['poison', events.map((e) => e.id)],
      );
      expect(rows).toEqual(poison.map((id) => ({ event_id: id, reason: 'projection failed: cannot apply this one' })));
    });

    it('stalls on an error that does not mark a poison event (a bug): dead-letters nothing, skips nothing, resumes once fixed', async () => {
      const [pool] = uniquePools(1);
      const events = sampleEventStream('mainnet-beta', [pool], 12);
      await h.producer.append(events);
      const record = recorder('stall-bug', [pool]);
      const failures: ConsumeFailure[] = [];
      let fixed = false;
      await consume(
        'stall-bug',
        async (batch, tx) => {
          if (!fixed && batch.some((d) => d.event.id === events[5].id)) throw new TypeError("Cannot read properties of undefined (reading 'amountIn')");
          await record(batch, tx);
        },
        4,
        { onError: (f) => failures.push(f) },
      );
      await until('two failed attempts', () => failures.length >= 2);
      const applied5 = (await applied('stall-bug')).map((r) => r.event_id);
      expect(applied5).not.toContain(events[5].id);
      expect(applied5).toEqual(events.slice(0, applied5.length).map((e) => e.id)); // a prefix: nothing behind it was applied
      expect(
        await deadLetters(
          'stall-bug',
          events.map((e) => e.id),
        ),
      ).toEqual([]);
      expect(failures[1]).toMatchObject({ transient: false, consecutiveFailures: 2 });
      expect(failures[1].error.message).toContain('amountIn');
      fixed = true;
      await waitForCount('stall-bug', events.length);
      expect((await applied('stall-bug')).map((r) => r.event_id)).toEqual(events.map((e) => e.id));
      expect(
        await deadLetters(
          'stall-bug',
          events.map((e) => e.id),
        ),
      ).toEqual([]);
    });

    // A batch past its deadline (ConsumeOptions.batchTimeoutMs): waiting on a lock nobody releases,
    // or on a promise that never settles. Either used to hold the consumer without a word.
    const backendGone = async (pid: number) =>
      (await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0].n === 0;
    it.each([
      ['a statement waiting on a lock nobody releases', 'lock'],
      ['a handler awaiting what never comes', 'promise'],
    ])('ends a batch stuck past its deadline (%s): its session goes, it is retried, each event applied once', async (_, how) => {
      const [pool] = uniquePools(1);
      const group = `deadline-${how}`;
      const events = sampleEventStream('mainnet-beta', [pool], 12);
      await h.producer.append(events);
      const record = recorder(group, [pool]);
      const failures: ConsumeFailure[] = [];
      const stuck: number[] = [];
      const holder = await h.db.pool.connect();
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE contract_gate IN ACCESS EXCLUSIVE MODE');
      try {
        await consume(
          group,
          async (batch, tx) => {
            await record(batch, tx);
            if (stuck.length > 0 || !batch.some((d) => d.event.pool === pool)) return;
            stuck.push((await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
            if (how === 'lock') await tx.query('SELECT count(*) FROM contract_gate');
            else await new Promise(() => undefined);
          },
          100,
          { onError: (f) => failures.push(f), batchTimeoutMs: 1500 },
        );
        // The stuck attempt's session is gone while the holder still keeps the gate locked: it was
        // ended, not unblocked (else it would wait there, holding whatever it had locked).
        await waitForCount(group, events.length);
        expect(await backendGone(stuck[0])).toBe(true);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      expect(stuck).toHaveLength(1);
      expect(failures[0].error.name).toBe('BatchTimeoutError');
      expect(failures[0].error.message).toContain('1500 ms deadline');
      expect((await applied(group)).map((r) => r.event_id)).toEqual(events.map((e) => e.id));
    });

    it('gives a batch that is merely long twice the deadline on each retry, so it commits instead of looping', async () => {
      const [pool] = uniquePools(1);
      const group = 'deadline-long';
      const events = sampleEventStream('devnet', [pool], 8);
      await h.producer.append(events);
      const record = recorder(group, [pool]);
      const failures: ConsumeFailure[] = [];
      let attempts = 0;
      await consume(
        group,
        async (batch, tx) => {
          await record(batch, tx);
          if (!batch.some((d) => d.event.id === events[0].id)) return; // one batch: the one with the first event
          attempts++;
          await tx.query('SELECT pg_sleep(1.5)'); // real work, every attempt: longer than 300 ms, 600 and 1200
        },
        100,
        { onError: (f) => failures.push(f), batchTimeoutMs: 300 },
      );
      await waitForCount(group, events.length, 30_000);
      // Ended at 300, 600 and 1200 ms, committed within 2400: with a fixed deadline it never would.
      expect(failures.map((f) => [f.error.name, (f.error as Error & { timeoutMs?: number }).timeoutMs])).toEqual([
        ['BatchTimeoutError', 300],
        ['BatchTimeoutError', 600],
        ['BatchTimeoutError', 1200],
      ]);
      expect(failures[0].error.message).toContain('retried with a 600 ms deadline');
      expect(attempts).toBe(4);
      expect((await applied(group)).map((r) => r.event_id)).toEqual(events.map((e) => e.id));
    });

    it('stalls while its table is missing (42P01 after a schema drop) and resumes when it is back', async () => {
      const [pool] = uniquePools(1);
      const events = sampleEventStream('devnet', [pool], 6);
      await h.db.pool.query('CREATE TABLE contract_target (event_id text PRIMARY KEY)');
      const failures: ConsumeFailure[] = [];
      await consume(
        'stall-table',
        async (batch, tx) => {
          const mine = batch.filter((d) => d.event.pool === pool).map((d) => d.event.id);
          if (mine.length) await tx.query('INSERT INTO contract_target SELECT unnest($1::text[])', [mine]);
        },
        100,
        { onError: (f) => failures.push(f) },
      );
      await h.db.pool.query('DROP TABLE contract_target');
      await h.producer.append(events);
      await until('a failed attempt', () => failures.length >= 1);
      expect((failures[0].error as Error & { code?: string }).code).toBe('42P01');
      expect(
        await deadLetters(
          'stall-table',
          events.map((e) => e.id),
        ),
      ).toEqual([]);
      await h.db.pool.query('CREATE TABLE contract_target (event_id text PRIMARY KEY)');
      await until('the events to land', async () => Number((await h.db.pool.query('SELECT count(*) AS n FROM contract_target')).rows[0].n) === events.length);
      expect(
        await deadLetters(
          'stall-table',
          events.map((e) => e.id),
        ),
      ).toEqual([]);
    });

    it('skips the types a group does not read, unparsed, yet checkpoints past them; an invalid payload is dead-lettered by the groups that read its type', async () => {
      const [pool] = uniquePools(1);
      const events = sampleEventStream('mainnet-beta', [pool], 9);
      const swap = events.find((e) => e.type === 'SwapExecuted')!;
      await h.producer.append(events.slice(0, 5));
      const badMidprice = `${pool}:bad-midprice`;
      const badUntyped = `${pool}:bad-untyped`;
      await h.producer.appendRaw([
        // Stored as a MidpriceUpdated: only groups reading that type parse (and refuse) it.
        { id: badMidprice, cluster: 'mainnet-beta', key: pool, type: 'MidpriceUpdated', payload: '{"type":"MidpriceUpdated",' },
        // Without a stored type every group parses it.
        {
          id: badUntyped,
          cluster: 'mainnet-beta',
          key: pool,
          payload: JSON.stringify({ ...swap, id: badUntyped, data: { ...(swap as HadronEvent & { data: object }).data, amountIn: '-5' } }),
        },
      ]);
      await h.producer.append(events.slice(5));
      const moved = { swaps: 0, all: 0 };
      const swapsOnly = await consume('types-swaps', recorder('types-swaps', [pool]), 3, {
        types: ['SwapExecuted'],
        onCommitted: ({ count }) => void (moved.swaps += count),
      });
      const allTypes = await consume('types-all', recorder('types-all', [pool]), 3, { onCommitted: ({ count }) => void (moved.all += count) });
      const swapIds = events.filter((e) => e.type === 'SwapExecuted').map((e) => e.id);
      await waitForCount('types-swaps', swapIds.length);
      await waitForCount('types-all', events.length);
      await until('both groups to reach the end of the log', async () => (await swapsOnly.lag()) === 0n && (await allTypes.lag()) === 0n);
      expect(moved.swaps).toBe(moved.all); // skipped records count as processed (progress, metrics)
      expect((await applied('types-swaps')).map((r) => r.event_id)).toEqual(swapIds);
      expect((await deadLetters('types-swaps', [badMidprice, badUntyped])).map((d) => d.event_id ?? 'no id')).toEqual([badUntyped]);
      const all = await h.db.pool.query<{ event_id: string | null; reason: string }>(
        `SELECT event_id, reason FROM event_dead_letter WHERE group_id = 'types-all' AND (event_id = $1 OR payload = '{"type":"MidpriceUpdated",') ORDER BY log_offset`,
        [badUntyped],
      );
      expect(all.rows).toEqual([
        { event_id: null, reason: expect.stringContaining('not JSON') },
        { event_id: badUntyped, reason: expect.stringContaining('data.amountIn') },
      ]);
    });

    it('re-reads from the stored checkpoint when commits it made were lost (an asynchronous commit lost in a crash, a restored backup)', async () => {
      const [pool] = uniquePools(1);
      const events = sampleEventStream('mainnet-beta', [pool], 12);
      await h.db.pool.query('CREATE TABLE contract_positions (stream text, part int, log_offset bigint, event_id text, pool text)');
      await h.producer.append(events.slice(0, 8));
      const c = await consume(
        'lost-commits',
        async (batch, tx) => {
          await tx.query('INSERT INTO contract_positions SELECT $1, $2, unnest($3::bigint[]), unnest($4::text[]), unnest($5::text[])', [
            batch[0].position.stream,
            batch[0].position.partition,
            batch.map((d) => d.position.offset.toString()),
            batch.map((d) => d.event.id),
            batch.map((d) => d.event.pool),
          ]);
        },
        3,
      );
      const mine = async () =>
        (
          await h.db.pool.query<{ stream: string; part: number; log_offset: string; event_id: string }>(
            'SELECT * FROM contract_positions WHERE pool = $1 ORDER BY log_offset',
            [pool],
          )
        ).rows;
      await until('the first events', async () => (await mine()).length === 8);
      // The database "loses" the transactions that applied this pool's last 4 events: rows and checkpoint go back.
      const first = await mine();
      const { stream, part } = first[0];
      const cut = first[4].log_offset;
      await h.db.pool.query('DELETE FROM contract_positions WHERE stream = $1 AND part = $2 AND log_offset >= $3', [stream, part, cut]);
      await h.db.pool.query("UPDATE event_log_checkpoint SET next_offset = $3 WHERE group_id = 'lost-commits' AND stream = $1 AND partition = $2", [
        stream,
        part,
        cut,
      ]);
      await h.producer.append(events.slice(8));
      await until('every event again', async () => (await mine()).length >= events.length);
      // Nothing left to re-apply once the group is at the end of the log: every batch is committed.
      await until('the group at the end of the log', async () => (await c.lag()) === 0n);
      expect((await mine()).map((r) => r.event_id)).toEqual(events.map((e) => e.id)); // the lost ones re-applied, none twice
    });

    it('applies every event exactly once although the consumer process is killed (-9) mid-batch again and again', async () => {
      const pools = uniquePools(5);
      const events = sampleEventStream('mainnet-beta', pools, 3000);
      await h.producer.append(events);
      const group = `kill-${runId}`;
      const env = { ...process.env, ...h.childEnv, DATABASE_URL: h.db.url, GROUP: group, POOLS: pools.join(','), SLOW_MS: '15', BATCH: '40' };
      let kills = 0;
      for (let round = 0; round < 5; round++) {
        const child = await startChild(env);
        await new Promise((r) => setTimeout(r, 400 + Math.random() * 900));
        child.kill('SIGKILL');
        await exited(child);
        kills++;
      }
      const final = await startChild(env);
      await waitForCount(group, events.length, 120_000);
      final.kill('SIGTERM');
      expect(await exited(final)).toBe(0); // drained and exited cleanly
      const { rows } = await h.db.pool.query<{ total: string; distinct: string }>(
        'SELECT count(*) AS total, count(DISTINCT event_id) AS distinct FROM contract_applied WHERE grp = $1',
        [group],
      );
      expect(kills).toBe(5);
      expect(rows[0]).toEqual({ total: String(events.length), distinct: String(events.length) });
      expect(byPool(await applied(group))).toEqual(byPool(events));
    }, 240_000);

    it('finishes and commits the in-flight batch on stop, and resumes after it on restart', async () => {
      const [pool] = uniquePools(1);
      const events = sampleEventStream('devnet', [pool], 200);
      await h.producer.append(events);
      const record = recorder('drain', [pool]);
      let inFlight: string[] = [];
      let entered!: () => void;
      const handlerEntered = new Promise<void>((r) => (entered = r));
      const c = await consume(
        'drain',
        async (batch, tx) => {
          const mine = batch.filter((d) => d.event.pool === pool).map((d) => d.event.id);
          inFlight = mine;
          if (mine.length) entered();
          await record(batch, tx);
          if (mine.length) await tx.query('SELECT pg_sleep(0.3)');
          inFlight = [];
        },
        20,
      );
      await handlerEntered;
      const atStop = inFlight;
      await c.stop();
      const afterStop = (await applied('drain')).map((r) => r.event_id);
      expect(atStop.length).toBeGreaterThan(0);
      expect(afterStop).toEqual(expect.arrayContaining(atStop)); // the in-flight batch was committed
      expect(afterStop).toEqual(events.slice(0, afterStop.length).map((e) => e.id)); // and nothing after it
      expect(afterStop.length).toBeLessThan(events.length);
      await consume('drain', record, 50);
      await waitForCount('drain', events.length);
      expect((await applied('drain')).map((r) => r.event_id)).toEqual(events.map((e) => e.id));
    });
  });
}

async function startChild(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'libs/platform/src/event-log/testing/consume-child.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  await new Promise<void>((resolveReady, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolveReady());
    child.once('exit', (code) => reject(new Error(`consumer child exited early (${code}): ${err}`)));
  });
  return child;
}

/** How the child ended: its exit code, or the signal that killed it (named, so a failure says which). */
function exited(child: ChildProcess): Promise<number | NodeJS.Signals> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode!);
  return new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal!)));
}
