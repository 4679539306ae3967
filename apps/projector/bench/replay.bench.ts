/**
 * Projector replay benchmark (DESIGN §6; issue 14: swaps ≥ 60 000 events/s and ≥ 50 % of a raw
 * COPY of the same rows, every projection at once ≥ 30 000 log events/s on 2 cores). Run:
 *   npm run bench:projector [-- --json <file>]
 * Env: BENCH_EVENTS (default 3 000 000: see below), BENCH_BATCH (consumer batch, default 5000), BENCH_ONLY (a
 *      regular expression: only the cases whose names match run, besides the raw COPY baseline),
 *      DATABASE_URL (an admin URL; a throwaway database is created in it) or the embedded Postgres
 *      under .data/bench-postgres (port BENCH_PG_PORT, default 54349), BENCH_KEEP=1 (keep the
 *      throwaway database, its builds and log, to look into afterwards: its name is printed).
 * Prints each case with its share of the raw COPY (the baseline) measured in the same run; with
 * `--json <file>`, writes the cases in the benches' common schema (BenchReport).
 * Every case starts after a CHECKPOINT (when the role may run one), so none pays for the previous
 * one's dirty pages: a COPY overlapping the checkpoint that appending the log triggers ran at 40 %
 * of its speed (128k against 320k rows/s on one machine). The baseline is the median of three
 * COPYs, each into a new table, after a fourth that is not counted (`warm_up_per_s`): the first
 * large write after the append often ran at two thirds of the speed of the ones after it. Then the
 * server's buffers are used once (touchBuffers), so no case pays for their first use.
 * The default log is large enough that the raw COPY runs at the rate the server sustains: 3,000,000
 * events (2.9 GB of log rows, 3.5 GB of this process's memory with their COPY text). A smaller one
 * is COPYed at a burst rate the server cannot keep up: its data stays in memory, and the CHECKPOINT
 * before the next case writes it, outside its timed window. On one 2-core machine (2026-12-01),
 * 300,000 and 1,000,000 events were COPYed at 250k–295k rows/s, 3,000,000 at 174k–196k (writing
 * to disk as they went), while the swaps replay kept 100k–120k events/s at all three sizes
 * (docs/performance-record.md). Each counted COPY's WAL is reported (`wal_mb_per_run`), beside the
 * server's `max_wal_size`.
 * Cases: raw COPY; the consumer alone (no-op projection); each projection alone (with `finish_s`,
 * the part spent writing the tables its replay deferred, where it defers some); every projection
 * at once through one fan-out reader (how the projector and `npm run replay -- --projection all`
 * run them) and, for comparison, with a consumer per build (each reads and parses the whole log);
 * the projections' write path alone as a replay writes (pre-parsed events, one transaction per batch,
 * then the tables a replay defers until it has caught up).
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseHadronEvent, type HadronEvent } from '@hadron/contracts';
import {
  createLogger,
  createPool,
  endPool,
  eventLogMigrations,
  inTransaction,
  PostgresEventLogConsumer,
  PostgresFanOut,
  runMigrations,
  withClient,
  withDatabase,
} from '@hadron/platform';
import type { DeliveredEvent, SqlTx } from '@hadron/platform';
import { benchKeepsDatabase, benchPostgres } from '@hadron/platform/testing/bench-postgres';
import { BenchReport, formatInt } from '@hadron/platform/testing/bench-report';
import { cpuDuring, type CpuSeconds } from '@hadron/platform/testing/cpu-time';
import { projectorMigrations } from '../src/migrations';
import type { ProjectionDefinition } from '../src/projection';
import { ALL_PROJECTIONS } from '../src/projections';
import { rebuildProjection } from '../src/replay/rebuild';
import type { ConsumerFactory } from '../src/runner/build-worker';
import { BuildRegistry } from '../src/builds/build-registry';
import { quoteIdent } from '../src/sql/identifiers';
import { generateEvents, generateRecords } from '../test-support/event-generator';
import { copyFrom, copyLine } from '../test-support/copy-from';

const N = Number(process.env.BENCH_EVENTS ?? 3_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 5000);
const GEN = { events: N, poolsPerCluster: 20, seed: 1 };
/** The baseline: the median of this many COPYs (odd), after one not counted. */
const BASELINE_RUNS = 3;
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
/** Whether the case named `name` runs (BENCH_ONLY). */
const runs = (name: string) => !ONLY || ONLY.test(name);
const log = createLogger('bench', 'warn');
const say = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const { adminUrl: admin, stop } = await benchPostgres(resolve(__dirname, '../../..'));
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  await sql(admin, `CREATE DATABASE ${dbName}`);
  const url = withDatabase(admin, dbName);
  const pool = createPool(url, { max: 16, application: 'bench' });
  const report = new BenchReport('projector-replay');
  const rate = (name: string, events: number, seconds: number, extra: Record<string, unknown> = {}) =>
    report.add({ case: name, events_per_s: Math.round(events / seconds), p50_ms: null, p99_ms: null, baseline: false, seconds: +seconds.toFixed(3), ...extra });
  report.set('events', N);
  report.set('batch', BATCH);
  const cores = (await import('node:os')).availableParallelism();
  report.set('cores', cores);
  /**
   * A replay case with where its CPU went (this process: read, parse, prepare; the bench database's
   * backends) and the rate that CPU would allow with every core busy all the time: no overlap of
   * the reader, the handler and Postgres can beat it.
   */
  const replayRate = (name: string, seconds: number, { self, postgres, machine, shmemGrowthBytes }: CpuSeconds, extra: Record<string, unknown> = {}) => {
    const bound = self + postgres > 0 ? Math.round(N / ((self + postgres) / cores)) : undefined;
    const busy = machine ? { machine_busy: +machine.busy.toFixed(2), machine_all: +machine.all.toFixed(2) } : {};
    const shmemGrowthMb = shmemGrowthBytes === null ? undefined : Math.max(0, Math.round(shmemGrowthBytes / 1024 / 1024));
    const cpu = bound === undefined ? {} : { cpu_s: { node: +self.toFixed(2), postgres: +postgres.toFixed(2), ...busy }, cpu_bound_events_per_s: bound };
    rate(name, N, seconds, { ...extra, ...cpu, ...(shmemGrowthMb === undefined ? {} : { shmem_growth_mb: shmemGrowthMb }) });
    if (bound !== undefined)
      say(
        `    CPU: node ${self.toFixed(2)} s + postgres ${postgres.toFixed(2)} s in ${seconds.toFixed(2)} s; ${cores} cores busy throughout: ${bound.toLocaleString('en-US')} ev/s at most`,
      );
    // What the bound does not count: the server's own processes (checkpointer, WAL writer,
    // autovacuum), the kernel's writeback, anything else on the machine.
    if (bound !== undefined && machine)
      say(
        `    the machine: ${machine.busy.toFixed(2)} of ${machine.all.toFixed(2)} core-s busy (${Math.round((100 * machine.busy) / machine.all)} %), ${Math.max(0, machine.busy - self - postgres).toFixed(2)} s of it outside this process and the bench database's backends` +
          (shmemGrowthMb === undefined
            ? ''
            : `; its shared memory grew ${formatInt(shmemGrowthMb)} MB (buffers used for the first time since the server started)`),
      );
  };

  report.set('node', process.version);
  try {
    await runMigrations(url, [eventLogMigrations, projectorMigrations]);
    report.set('postgres', (await pool.query('SHOW server_version')).rows[0].server_version);

    // 1. Generate the events and bulk-append them to the Postgres log (COPY into event_log, which
    //    keeps its unique index on id and its seq order, with the type column the producer writes),
    //    keeping the COPY text of the same rows for the raw COPY below.
    say(`generating and appending ${N.toLocaleString('en-US')} events…`);
    const copyChunks: Buffer[] = [];
    let appendMs = 0;
    let bytes = 0;
    /** The log's records by type: a projection with `eventTypes` reads and parses only its own. */
    const ofType = new Map<string, number>();
    for (const chunk of generateRecords(GEN, 20_000)) {
      for (const { type } of chunk) ofType.set(type ?? '', (ofType.get(type ?? '') ?? 0) + 1);
      const text = Buffer.from(chunk.map((r) => copyLine([r.id, r.cluster, r.key, r.payload, r.type ?? null])).join(''));
      bytes += text.length;
      copyChunks.push(text);
      const c = await pool.connect();
      const t = Date.now();
      try {
        await copyFrom(c, 'COPY event_log (id, cluster, key, payload, type) FROM STDIN', [text]);
      } finally {
        c.release();
      }
      appendMs += Date.now() - t;
    }
    report.set('appendToLog', { seconds: appendMs / 1000, perSecond: Math.round(N / (appendMs / 1000)), mbytes: Math.round(bytes / 1e6) });
    report.set('log_types', Object.fromEntries(ofType));
    await pool.query('VACUUM ANALYZE event_log');

    // 2. Raw COPY of the same rows into a plain table on the same server: the baseline, the median
    //    of three after one not counted. The first large write after the log's append often ran far
    //    below the rest (105k–128k rows/s against 142k–196k, 5 of 8 sequences on one machine), and
    //    every case runs after the baseline's COPYs, in the state the later ones saw.
    const copies: number[] = [];
    const walMb: number[] = [];
    for (let i = 0; i < 1 + BASELINE_RUNS; i++) {
      await pool.query('DROP TABLE IF EXISTS bench_copy');
      await pool.query('CREATE TABLE bench_copy (id text, cluster text, key text, payload text, type text)');
      await settle(pool, report);
      const client = await pool.connect();
      try {
        const walBefore = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
        const t = Date.now();
        const n = await copyFrom(client, 'COPY bench_copy (id, cluster, key, payload, type) FROM STDIN', copyChunks);
        copies.push((Date.now() - t) / 1000);
        if (n !== N) throw new Error(`COPY wrote ${n} rows, expected ${N}`);
        const wal = await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS bytes', [walBefore]);
        walMb.push(Math.round(Number(wal.rows[0].bytes) / 1e6));
      } finally {
        client.release();
      }
    }
    const [warmUp, ...counted] = copies;
    const [, ...countedWalMb] = walMb;
    const copySeconds = [...counted].sort((a, b) => a - b)[(BASELINE_RUNS - 1) / 2];
    const rowsPerSecond = (seconds: number) => Math.round(N / seconds);
    report.add({
      case: 'raw COPY of the log rows',
      events_per_s: rowsPerSecond(copySeconds),
      p50_ms: null,
      p99_ms: null,
      baseline: true,
      seconds: copySeconds,
      runs_per_s: counted.map(rowsPerSecond),
      warm_up_per_s: rowsPerSecond(warmUp),
      wal_mb_per_run: countedWalMb,
    });
    const maxWal = (await pool.query<{ max_wal_size: string }>('SHOW max_wal_size')).rows[0].max_wal_size;
    report.set('max_wal_size', maxWal);
    say(
      `  (raw COPY runs: ${counted.map((c) => formatInt(N / c)).join(', ')} rows/s, ${countedWalMb.map(formatInt).join(', ')} MB of WAL each, max_wal_size ${maxWal}; ` +
        `the one before them, not counted: ${formatInt(N / warmUp)})`,
    );
    copyChunks.length = 0;
    await touchBuffers(pool, report);
    await pool.query('DROP TABLE bench_copy');

    // 3. What the consumer core spends per event before any projection runs: JSON.parse + contract validation (one core).
    const sample = [...generateEvents({ ...GEN, events: Math.min(N, 50_000) })].map((e) => JSON.stringify(e));
    for (const p of sample.slice(0, 5000)) parseHadronEvent(p); // warm up
    let t = process.hrtime.bigint();
    for (const p of sample) parseHadronEvent(p);
    const validateUs = Number(process.hrtime.bigint() - t) / 1000 / sample.length;
    t = process.hrtime.bigint();
    for (const p of sample) JSON.parse(p);
    const jsonUs = Number(process.hrtime.bigint() - t) / 1000 / sample.length;
    report.set('validation', {
      jsonParseMicros: +jsonUs.toFixed(2),
      parseAndValidateMicros: +validateUs.toFixed(2),
      ceilingPerSecond: Math.round(1e6 / validateUs),
    });
    say(`parse + validate: ${validateUs.toFixed(1)} µs/event (JSON.parse alone ${jsonUs.toFixed(1)} µs)`);

    // 4. Replay through the real consumer (Postgres log → fan-out reader → checkpointed batches → projection).
    const fanOut = (): ConsumerFactory => {
      const reader = new PostgresFanOut(pool, url, log, 1000);
      return () => reader.consumer();
    };
    const replay = (def: ProjectionDefinition, consumerFactory: ConsumerFactory) =>
      rebuildProjection(def, { pool, consumerFactory, log, maxBatchSize: BATCH, progressEveryMs: 60_000 });
    /**
     * A projection replayed alone; for one that defers tables to the end of its replay
     * (ProjectionDefinition.finishBuild: swaps' running totals), how long writing them took, so
     * the report splits the case into the replay proper and its finish.
     */
    const alone = async (def: ProjectionDefinition) => {
      await settle(pool, report);
      let finishSeconds: number | undefined;
      const finishBuild = def.finishBuild;
      const timed: ProjectionDefinition = finishBuild
        ? {
            ...def,
            finishBuild: async (...args) => {
              const start = process.hrtime.bigint();
              await finishBuild(...args);
              finishSeconds = Number(process.hrtime.bigint() - start) / 1e9;
            },
          }
        : def;
      const { result, cpu } = await cpuDuring(() => replay(timed, fanOut()), { databaseUrl: url });
      return { ...result, cpu, finishSeconds };
    };
    // The consumer alone (read, parse + validate, checkpoint) with a projection that writes nothing: the ceiling.
    const noop: ProjectionDefinition = {
      name: 'noop',
      schema: { version: 1, tables: [], ddl: () => [], views: [] },
      createHandler: () => async () => undefined,
    };
    if (runs('consumer alone (no-op projection)')) {
      const ceiling = await alone(noop);
      replayRate('consumer alone (no-op projection)', ceiling.seconds, ceiling.cpu);
    }
    for (const def of ALL_PROJECTIONS) {
      if (!runs(`${def.name} alone`)) continue;
      const r = await alone(def);
      if (r.events !== N) throw new Error(`${def.name} replayed ${r.events} events, expected ${N}`);
      const finish = r.finishSeconds === undefined ? {} : { finish_s: +r.finishSeconds.toFixed(3) };
      // A projection with eventTypes reads and parses only those records: its CPU is not the
      // consumer alone's plus its handler's (each case with them says how much of the log it read).
      const types = def.eventTypes;
      const read = types?.reduce((n, t) => n + (ofType.get(t) ?? 0), 0);
      replayRate(`${def.name} alone`, r.seconds, r.cpu, { ...(types ? { reads: types, reads_records: read } : {}), ...finish });
      if (types && read !== undefined)
        say(`    reads ${formatInt(read)} of the ${formatInt(N)} log records (${Math.round((100 * read) / N)} %: ${types.join(', ')})`);
      if (r.finishSeconds !== undefined)
        say(
          `    writing the deferred tables (finishBuild) ${r.finishSeconds.toFixed(2)} s; the replay before it and the switch ${(r.seconds - r.finishSeconds).toFixed(2)} s`,
        );
    }

    // 5. Every projection at once (an upgrade of all, `replay --projection all`): log events/s.
    const together = async (consumerFactory: ConsumerFactory) => {
      await settle(pool, report);
      const start = process.hrtime.bigint();
      const { result: all, cpu } = await cpuDuring(() => Promise.all(ALL_PROJECTIONS.map((def) => replay(def, consumerFactory))), { databaseUrl: url });
      if (all.some((r) => r.events !== N)) throw new Error('concurrent replay missed events');
      return { seconds: Number(process.hrtime.bigint() - start) / 1e9, cpu };
    };
    for (const [name, factory] of [
      ['all projections at once, one fan-out reader (log ev/s)', fanOut],
      ['all projections at once, a consumer per build (log ev/s)', (): ConsumerFactory => () => new PostgresEventLogConsumer(pool, url, log, 1000)],
    ] as const) {
      if (!runs(name)) continue;
      const r = await together(factory());
      replayRate(name, r.seconds, r.cpu, { applied_per_s: Math.round((ALL_PROJECTIONS.length * N) / r.seconds) });
    }

    // 6. The projections' write path alone, as a replay writes: pre-parsed events, all three
    //    handlers (the bulk one where a projection has it), one transaction per batch, then the
    //    deferred tables (ProjectionDefinition.finishBuild).
    if (!runs('write path alone')) {
      report.write();
      return;
    }
    const registry = new BuildRegistry(pool);
    const builds = await Promise.all(ALL_PROJECTIONS.map((def) => registry.create(def)));
    const handlers = ALL_PROJECTIONS.map((def, i) => (def.createBuildingHandler ?? def.createHandler)(quoteIdent(builds[i].schemaName)));
    await settle(pool, report);
    let writeMs = 0;
    const handlerMs = ALL_PROJECTIONS.map(() => 0);
    let batch: DeliveredEvent[] = [];
    const flush = async () => {
      const start = Date.now();
      await inTransaction(pool, async (c) => {
        for (const [i, h] of handlers.entries()) {
          const t0 = Date.now();
          await h(batch, c as unknown as SqlTx);
          handlerMs[i] += Date.now() - t0;
        }
      });
      writeMs += Date.now() - start;
      batch = [];
    };
    let offset = 0n;
    for (const event of generateEvents(GEN) as Generator<HadronEvent>) {
      batch.push({ event, position: { stream: 'bench', partition: 0, offset: offset++ } });
      if (batch.length === BATCH) await flush();
    }
    if (batch.length) await flush();
    for (const [i, def] of ALL_PROJECTIONS.entries()) {
      const start = Date.now();
      await registry.finish(def, builds[i]);
      handlerMs[i] += Date.now() - start;
      writeMs += Date.now() - start;
    }
    rate('write path alone, all projections (pre-parsed)', N, writeMs / 1000);
    for (const [i, def] of ALL_PROJECTIONS.entries()) rate(`write path alone, ${def.name} (pre-parsed)`, N, handlerMs[i] / 1000);
    report.write();
  } finally {
    await endPool(pool);
    const kept = await stop({ name: dbName, keep: benchKeepsDatabase() });
    if (kept) say(`${kept}; drop it with: DROP DATABASE ${dbName}`);
  }
}

/**
 * Reads the last baseline COPY's table into Postgres's buffers (pg_prewarm), up to as many blocks as
 * the server has buffers, before it is dropped, so that the cases run on buffers already used once,
 * as a server that has been running has them. A freshly started server's buffers are shared memory
 * the kernel has not allocated yet: the first use of each costs a page fault and zeroing its pages.
 * The COPYs write through a small ring of buffers and the log's append used about half of a 6 GB
 * server's, so on a fresh server the replays, which read the log through its index and build new
 * tables, paid for the first use of the rest inside their timed window (swaps alone: 2.1 GB of
 * first use, about a sixth more Postgres CPU than with 256 MB of buffers; docs/performance-record.md,
 * 2026-12-07). Where pg_prewarm cannot be had (another server, no privilege), the run goes on and
 * its report says so. Each case prints how much the machine's shared memory grew during it.
 */
async function touchBuffers(pool: ReturnType<typeof createPool>, report: BenchReport): Promise<void> {
  const start = Date.now();
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    const { rows } = await pool.query<{ blocks: string }>(
      `SELECT pg_prewarm('bench_copy', 'buffer', 'main', 0, least(pg_relation_size('bench_copy') / current_setting('block_size')::int8,
         (SELECT setting::int8 FROM pg_settings WHERE name = 'shared_buffers')) - 1)::text AS blocks`,
    );
    const seconds = (Date.now() - start) / 1000;
    report.set('buffersTouched', { blocks: Number(rows[0].blocks), seconds });
    say(
      `  (the server's buffers used once before the cases: ${formatInt(Number(rows[0].blocks))} blocks of the baseline's table read in ${seconds.toFixed(1)} s)`,
    );
  } catch (e) {
    report.set('buffersTouched', { error: (e as Error).message });
    say(`  (the server's buffers were not used before the cases: ${(e as Error).message}; their first use is in the cases' time)`);
  }
}

/**
 * CHECKPOINT, so the next case does not pay for the dirty pages of the one before. Needs superuser
 * or pg_checkpoint; without either, the run goes on and its report says so.
 */
async function settle(pool: ReturnType<typeof createPool>, report: BenchReport): Promise<void> {
  try {
    await pool.query('CHECKPOINT');
  } catch (e) {
    if ((e as { code?: string }).code !== '42501') throw e;
    report.set('checkpointBetweenCases', false);
  }
}

function sql(url: string, text: string): Promise<unknown> {
  return withClient(url, (c) => c.query(text));
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
