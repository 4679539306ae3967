/**
 * Scale-out benchmark: `npm run bench:scale-out [-- --json <file>]` (needs KAFKA_BROKERS).
 *
 * The same generated log (BENCH_EVENTS, default 200 000, keyed by pool over
 * KAFKA_TOPIC_PARTITIONS partitions) replayed by 1 and then by 2 projector processes started as
 * users start them (`dist/apps/projector/src/main.js`, one consumer group per projection shared by
 * the processes), each run into a fresh database and fresh topics. Reports log events/s (events
 * of the log / time from the first checkpoint to the last, i.e. every projection caught up) and
 * the wall time including start-up, with the 1-process run as the baseline (BenchReport: the share of
 * it is printed beside each case; `--json <file>` writes the cases).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { HadronEvent } from '@hadron/contracts';
import { createLogger, createPool, endPool, eventLogMigrations, runMigrations, withClient, withDatabase } from '@hadron/platform';
import { openKafkaEventLog } from '@hadron/platform/event-log/kafka/kafka-event-log';
import { benchPostgres } from '@hadron/platform/testing/bench-postgres';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { npmScriptNodeFlags } from '@hadron/platform/testing/node-command';
import { projectorMigrations } from '../src/migrations';
import { ALL_PROJECTIONS } from '../src/projections';
import { generateEvents } from '../test-support/event-generator';

const ROOT = resolve(__dirname, '../../..');
const N = Number(process.env.BENCH_EVENTS ?? 200_000);
const PARTITIONS = Number(process.env.KAFKA_TOPIC_PARTITIONS ?? 6);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1000;
const say = (s: string) => process.stdout.write(`${s}\n`);
const log = createLogger('bench', 'warn');

interface Run {
  processes: number;
  eventsPerS: number;
  wallS: number;
  replayS: number;
}

async function main(): Promise<void> {
  const brokers = process.env.KAFKA_BROKERS?.split(',').map((b) => b.trim());
  if (!brokers?.length) throw new Error('bench:scale-out needs a Kafka broker: KAFKA_BROKERS=host:port (e.g. eval "$(bash scripts/kafka/start.sh)")');
  const { adminUrl, stop } = await benchPostgres(ROOT);
  const runs: Run[] = [];
  try {
    say(`${N.toLocaleString('en')} events, ${PARTITIONS} partitions per topic, ${ALL_PROJECTIONS.length} projections (one consumer group each)`);
    for (const processes of [1, 2]) runs.push(await replay(adminUrl, brokers, processes));
    const report = new BenchReport('scale-out');
    report.set('events', N);
    report.set('partitions', PARTITIONS);
    say('');
    for (const r of runs)
      report.add({
        case: `${r.processes} projector process${r.processes > 1 ? 'es' : ''} (log ev/s)`,
        events_per_s: Math.round(r.eventsPerS),
        p50_ms: null,
        p99_ms: null,
        baseline: r.processes === 1,
        replay_s: +r.replayS.toFixed(1),
        wall_s: +r.wallS.toFixed(1),
      });
    report.write();
  } finally {
    await stop();
  }
}

/** A fresh database and fresh topics holding the log; `processes` projectors replay it. */
async function replay(adminUrl: string, brokers: string[], processes: number): Promise<Run> {
  const tag = randomBytes(3).toString('hex');
  const dbName = `bench_scale_${processes}_${tag}`;
  const prefix = `benchscale${tag}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
  const url = withDatabase(adminUrl, dbName);
  const pool = createPool(url, { max: 2, application: 'bench-scale-out' });
  const children: ChildProcess[] = [];
  try {
    await runMigrations(url, [eventLogMigrations, projectorMigrations]);
    const eventLog = openKafkaEventLog(
      { kafkaBrokers: brokers, kafkaClientId: 'bench-scale-out', kafkaTopicPrefix: prefix, kafkaTopicPartitions: PARTITIONS },
      log,
    );
    const producer = await eventLog.producer();
    let batch: HadronEvent[] = [];
    let total = 0; // = records in the fresh topics (offsets from 0, idempotent producer: no gaps)
    for (const e of generateEvents({ events: N, poolsPerCluster: 20, seed: 1 })) {
      batch.push(e);
      total++;
      if (batch.length === 10_000) {
        await producer.append(batch);
        batch = [];
      }
    }
    if (batch.length) await producer.append(batch);
    await eventLog.close();
    say(`\n${processes} process${processes > 1 ? 'es' : ''}: ${total.toLocaleString('en')} records in ${prefix}.*.events`);

    const started = Date.now();
    for (let i = 0; i < processes; i++) children.push(startProjector(url, brokers, prefix));
    let first = 0;
    for (;;) {
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`not caught up within ${TIMEOUT_MS / 1000} s`);
      for (const c of children) if (c.exitCode !== null) throw new Error(`a projector exited with ${c.exitCode}`);
      const { rows } = await pool.query<{ group_id: string; done: string }>(
        'SELECT group_id, sum(next_offset)::text AS done FROM event_log_checkpoint GROUP BY group_id',
      );
      const done = rows.map((r) => BigInt(r.done));
      if (!first && done.some((d) => d > 0n)) first = Date.now();
      if (rows.length === ALL_PROJECTIONS.length && done.every((d) => d >= BigInt(total))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const end = Date.now();
    const replayS = (end - first) / 1000;
    const run = { processes, eventsPerS: total / replayS, replayS, wallS: (end - started) / 1000 };
    say(`  caught up: ${run.eventsPerS.toFixed(0)} log events/s (${replayS.toFixed(1)} s from the first checkpoint; ${run.wallS.toFixed(1)} s with start-up)`);
    return run;
  } finally {
    await Promise.all(children.map((c) => stopChild(c)));
    await endPool(pool);
    await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch(() => undefined);
  }
}

function startProjector(url: string, brokers: string[], prefix: string): ChildProcess {
  const env = {
    ...process.env,
    DATABASE_URL: url,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
  };
  // What `npm run start:projector` runs after its build, with its Node flags (README "Node flag").
  return spawn(process.execPath, [...npmScriptNodeFlags(ROOT, 'start:projector'), '-r', './scripts/register-aliases.js', 'dist/apps/projector/src/main.js'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => c.kill('SIGKILL'), 40_000);
    c.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    c.kill('SIGTERM');
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
