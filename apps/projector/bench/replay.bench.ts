/**
 * Projector replay benchmark (DESIGN §6: ≥ 50 000 events/s into Postgres on 2 cores, ≥ 40 % of a
 * raw COPY of the same rows). Run:
 *   node -r ./scripts/register-ts.js apps/projector/bench/replay.bench.ts
 * Env: BENCH_EVENTS (default 1 000 000), BENCH_BATCH (consumer batch, default 5000),
 *      DATABASE_URL (an admin URL; a throwaway database is created in it) or the embedded Postgres
 *      under .data/bench-postgres (port BENCH_PG_PORT, default 54349).
 * Prints one table and writes bench-results/projector-replay.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseHadronEvent, type HadronEvent } from '@hadron/contracts';
import { createLogger, createPool, endPool, eventLogMigrations, PostgresEventLogConsumer, runMigrations, withClient, withDatabase } from '@hadron/platform';
import { benchPostgres } from '@hadron/platform/testing/bench-postgres';
import type { DeliveredEvent, SqlTx } from '@hadron/platform';
import { projectorMigrations } from '../src/migrations';
import type { ProjectionDefinition } from '../src/projection';
import { ALL_PROJECTIONS } from '../src/projections';
import { rebuildProjection } from '../src/replay/rebuild';
import { BuildRegistry } from '../src/builds/build-registry';
import { quoteIdent } from '../src/sql/identifiers';
import { generateEvents, generateRecords } from '../test-support/event-generator';
import { copyFrom, copyLine } from '../test-support/copy-from';

const N = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 5000);
const GEN = { events: N, poolsPerCluster: 20, seed: 1 };
const log = createLogger('bench', 'warn');
const say = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const { adminUrl: admin, stop } = await benchPostgres(resolve(__dirname, '../../..'));
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  await sql(admin, `CREATE DATABASE ${dbName}`);
  const url = withDatabase(admin, dbName);
  const pool = createPool(url, { max: 16, application: 'bench' });
  const results: Record<string, unknown> = { events: N, batch: BATCH, cores: (await import('node:os')).cpus().length, node: process.version };
  try {
    await runMigrations(url, [eventLogMigrations, projectorMigrations]);
    const pgVersion = (await pool.query('SHOW server_version')).rows[0].server_version;
    results.postgres = pgVersion;

    // 1. Generate the events and bulk-append them to the Postgres log (COPY into event_log, which
    //    keeps its unique index on id and its seq order, with the type column the producer writes),
    //    keeping the COPY text of the same rows for the raw COPY below.
    say(`generating and appending ${N.toLocaleString('en-US')} events…`);
    const copyChunks: Buffer[] = [];
    let appendMs = 0;
    let bytes = 0;
    for (const chunk of generateRecords(GEN, 20_000)) {
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
    results.appendToLog = { seconds: appendMs / 1000, perSecond: Math.round(N / (appendMs / 1000)), mbytes: Math.round(bytes / 1e6) };
    await pool.query('VACUUM ANALYZE event_log');

    // 2. Raw COPY of the same rows into a plain table on the same server.
    await pool.query('CREATE TABLE bench_copy (id text, cluster text, key text, payload text, type text)');
    const client = await pool.connect();
    let copySeconds: number;
    try {
      const t = Date.now();
      const n = await copyFrom(client, 'COPY bench_copy (id, cluster, key, payload, type) FROM STDIN', copyChunks);
      copySeconds = (Date.now() - t) / 1000;
      if (n !== N) throw new Error(`COPY wrote ${n} rows, expected ${N}`);
    } finally {
      client.release();
    }
    copyChunks.length = 0;
    const copyRate = N / copySeconds;
    results.rawCopy = { seconds: copySeconds, perSecond: Math.round(copyRate) };
    say(`raw COPY: ${Math.round(copyRate).toLocaleString('en-US')} rows/s`);

    // 3. What the consumer core spends per event before any projection runs: JSON.parse + contract validation.
    const sample = [...generateEvents({ ...GEN, events: 50_000 })].map((e) => JSON.stringify(e));
    for (const p of sample.slice(0, 5000)) parseHadronEvent(p); // warm up
    let t = process.hrtime.bigint();
    for (const p of sample) parseHadronEvent(p);
    const validateUs = Number(process.hrtime.bigint() - t) / 1000 / sample.length;
    t = process.hrtime.bigint();
    for (const p of sample) JSON.parse(p);
    const jsonUs = Number(process.hrtime.bigint() - t) / 1000 / sample.length;
    results.validation = {
      jsonParseMicros: +jsonUs.toFixed(2),
      parseAndValidateMicros: +validateUs.toFixed(2),
      ceilingPerSecond: Math.round(1e6 / validateUs),
    };

    // 4. Replay through the real consumer (Postgres log → checkpointed batches → projection), one projection at a time.
    const consumerFactory = () => new PostgresEventLogConsumer(pool, url, log, 1000);
    const replay: Record<string, unknown> = {};
    // The consumer alone (fetch, parse + validate, checkpoint) with a projection that writes nothing: the ceiling.
    const noop: ProjectionDefinition = {
      name: 'noop',
      schema: { version: 1, tables: [], ddl: () => [], views: [] },
      createHandler: () => async () => undefined,
    };
    const ceiling = await rebuildProjection(noop, { pool, consumerFactory, log, maxBatchSize: BATCH });
    replay.consumerOnlyNoWrites = {
      seconds: ceiling.seconds,
      perSecond: Math.round(N / ceiling.seconds),
      ofRawCopy: +(N / ceiling.seconds / copyRate).toFixed(3),
    };
    say(`consumer alone (no-op projection): ${Math.round(N / ceiling.seconds).toLocaleString('en-US')} events/s`);
    let sequentialSeconds = 0;
    for (const def of ALL_PROJECTIONS) {
      const r = await rebuildProjection(def, {
        pool,
        consumerFactory,
        log,
        maxBatchSize: BATCH,
        progressEveryMs: 5000,
        onProgress: (p) => say(`  ${def.name}: ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')} ${Math.round(p.perSecond)} ev/s`),
      });
      if (r.events !== N) throw new Error(`${def.name} replayed ${r.events} events, expected ${N}`);
      sequentialSeconds += r.seconds;
      replay[def.name] = { seconds: r.seconds, perSecond: Math.round(N / r.seconds), ofRawCopy: +(N / r.seconds / copyRate).toFixed(3) };
      say(`replay ${def.name}: ${Math.round(N / r.seconds).toLocaleString('en-US')} events/s`);
    }
    results.replayPerProjection = replay;
    results.replayAllSequential = { seconds: sequentialSeconds, logEventsPerSecond: Math.round(N / sequentialSeconds) };

    // 5. All three projections at once (what the projector runner does after an upgrade).
    t = process.hrtime.bigint();
    const all = await Promise.all(ALL_PROJECTIONS.map((def) => rebuildProjection(def, { pool, consumerFactory, log, maxBatchSize: BATCH })));
    const concurrentSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    if (all.some((r) => r.events !== N)) throw new Error('concurrent replay missed events');
    results.replayAllConcurrent = {
      seconds: concurrentSeconds,
      logEventsPerSecond: Math.round(N / concurrentSeconds),
      appliedPerSecond: Math.round((3 * N) / concurrentSeconds),
    };
    say(`replay all concurrently: ${Math.round(N / concurrentSeconds).toLocaleString('en-US')} log events/s`);

    // 6. The projections' write path alone: pre-parsed events, all three handlers, one transaction per batch.
    const registry = new BuildRegistry(pool);
    const builds = await Promise.all(ALL_PROJECTIONS.map((def) => registry.create(def)));
    const handlers = ALL_PROJECTIONS.map((def, i) => def.createHandler(quoteIdent(builds[i].schemaName)));
    let writeMs = 0;
    const handlerMs = ALL_PROJECTIONS.map(() => 0);
    let batch: DeliveredEvent[] = [];
    const flush = async () => {
      const c = await pool.connect();
      const start = Date.now();
      try {
        await c.query('BEGIN');
        for (const [i, h] of handlers.entries()) {
          const t0 = Date.now();
          await h(batch, c as unknown as SqlTx);
          handlerMs[i] += Date.now() - t0;
        }
        await c.query('COMMIT');
      } finally {
        c.release();
      }
      writeMs += Date.now() - start;
      batch = [];
    };
    let offset = 0n;
    for (const event of generateEvents(GEN) as Generator<HadronEvent>) {
      batch.push({ event, position: { stream: 'bench', partition: 0, offset: offset++ } });
      if (batch.length === BATCH) await flush();
    }
    if (batch.length) await flush();
    results.writePathAllProjections = {
      seconds: writeMs / 1000,
      perSecond: Math.round(N / (writeMs / 1000)),
      ofRawCopy: +(N / (writeMs / 1000) / copyRate).toFixed(3),
      perProjection: Object.fromEntries(
        ALL_PROJECTIONS.map((def, i) => [def.name, { seconds: handlerMs[i] / 1000, perSecond: Math.round(N / (handlerMs[i] / 1000)) }]),
      ),
    };
    say(`write path (3 projections, pre-parsed): ${Math.round(N / (writeMs / 1000)).toLocaleString('en-US')} events/s`);

    mkdirSync(resolve(__dirname, '../../../bench-results'), { recursive: true });
    writeFileSync(resolve(__dirname, '../../../bench-results/projector-replay.json'), JSON.stringify(results, null, 2));
    console.log(JSON.stringify(results, null, 2));
  } finally {
    await endPool(pool);
    await sql(admin, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await stop();
  }
}

function sql(url: string, text: string): Promise<unknown> {
  return withClient(url, (c) => c.query(text));
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
