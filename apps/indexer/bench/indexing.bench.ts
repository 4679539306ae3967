/**
 * End-to-end indexing throughput: the simulated cluster (its own process, over HTTP, JSON-RPC batches) → decode →
 * events → the Postgres event log + cursor commits, the whole backfill of both clusters at once, RPC limits lifted.
 * Prints tx/s (RPC to committed events), where the time went, and RPC calls per transaction; then, as the in-run
 * baseline, the same transactions fetched again without indexing them (getTransaction batches + JSON.parse only:
 * what the simulator can serve). Not a timed test: machines are noisy.
 *   node -r ./scripts/register-ts.js apps/indexer/bench/indexing.bench.ts [historySeconds=1800] [--json <file>]
 * Env: BENCH_RPC_CONCURRENCY (4), BENCH_TX_BATCH (100), BENCH_CHUNK_TXS (1000), POSITIONS (multi).
 * Uses DATABASE_URL when set, else an embedded Postgres under .data/bench-postgres.
 *
 * Where the time went comes from the indexer's own counters (hadron_indexer_stage_seconds_total: hrtime around each
 * stage), not from a profiler. The indexer's thread: JSON parsing of RPC answers, their shape checks, decode, build,
 * event encoding (validation + JSON) — exclusive of each other — plus the rest of its busy time (HTTP and Postgres
 * clients, GC, planning) and its idle time (nothing to do but wait for the simulator or Postgres). The per-cluster
 * loop: listing, fetching, deriving, appending, committing. And the CPU each process used (indexer, simulator, the
 * Postgres backends of the bench's database): the three share the machine's cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLogger, eventLogMigrations, openEventLog, parseEnv, type Storage } from '@hadron/platform';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { startBenchEmbeddedPostgres } from '@hadron/platform/testing/bench-postgres';
import { processCpuSeconds } from '@hadron/platform/testing/cpu-time';
import { createTestDatabase } from '@hadron/platform/testing/test-database';
import type { Pool } from 'pg';
import { indexerEnvSchema, indexerMigrations, startIndexer } from '../src/index';
import { HADRON_PROGRAMS } from '../src/discovery/pool-reader';
import { SolanaRpc } from '../src/source/solana-rpc';

type ClusterName = 'mainnet-beta' | 'devnet';
type MetricValues = { metricName?: string; labels: Record<string, string | number>; value: number }[];

const THREAD_STAGES = ['rpc_json_parse', 'rpc_check', 'decode', 'build', 'append_encode'] as const;
const LOOP_STAGES = ['listing', 'fetch_wait', 'append', 'commit'] as const;

async function main(): Promise<void> {
  const historySeconds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1800);
  const rpcConcurrency = process.env.BENCH_RPC_CONCURRENCY ?? '4';
  const txBatch = process.env.BENCH_TX_BATCH ?? '100';
  const report = new BenchReport('indexer');
  const embedded = process.env.DATABASE_URL ? undefined : await startBenchEmbeddedPostgres(resolve(__dirname, '../../..'));
  process.env.TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL ?? embedded!.url;
  const db = await createTestDatabase([eventLogMigrations, indexerMigrations]);
  const genStarted = Date.now();
  const sim = await startSimulatorProcess(historySeconds);
  const heads = { 'mainnet-beta': await rpcSlot(sim.urls['mainnet-beta']), devnet: await rpcSlot(sim.urls.devnet) };
  console.log(`simulated ${historySeconds} s of history on 2 clusters (generated in ${((Date.now() - genStarted) / 1000).toFixed(1)} s)`);

  const log = createLogger('bench', 'warn');
  const storage: Storage = {
    url: db.url,
    pool: db.pool,
    eventLog: openEventLog({ kafkaClientId: 'bench', kafkaTopicPrefix: 'bench', kafkaTopicPartitions: 1 }, db.pool, log),
    close: async () => undefined,
  };
  const config = parseEnv(indexerEnvSchema, {
    RPC_URL_MAINNET_BETA: sim.urls['mainnet-beta'],
    RPC_URL_DEVNET: sim.urls.devnet,
    RPC_RPS: '1000000',
    RPC_CONCURRENCY: rpcConcurrency,
    RPC_TX_BATCH: txBatch,
    INDEXER_START_SLOT: '0',
    INDEXER_CHUNK_TXS: process.env.BENCH_CHUNK_TXS ?? '1000',
    INDEXER_TX_POSITIONS: process.env.POSITIONS ?? 'multi',
    INDEXER_REFRESH_SECONDS: '3600',
    INDEXER_PROGRESS_SECONDS: '3600',
  });

  const cpu0 = await cpuSnapshot(sim.process.pid!, db.pool);
  const elu0 = performance.eventLoopUtilization();
  const started = performance.now();
  const indexer = await startIndexer(storage, config, log);
  let peakHeap = 0;
  for (;;) {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    const status = indexer.status();
    if (status.every((s) => s.backfillDone && s.cursorSlot !== null && s.cursorSlot >= heads[s.cluster])) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = cpuDelta(cpu0, await cpuSnapshot(sim.process.pid!, db.pool));

  // The listing is held as page boundaries plus one slot window at a time: the largest window, not the range, is what memory holds.
  const windows = (await indexer.metrics.listingWindow.get()).values as MetricValues;
  const of = (suffix: string) => windows.filter((v) => v.metricName?.endsWith(suffix));
  const windowCount = of('_count').reduce((a, v) => a + v.value, 0);
  const windowSum = of('_sum').reduce((a, v) => a + v.value, 0);
  // Per cluster, the smallest bucket holding every window.
  const largest = of('_count').map((c) => of('_bucket').find((b) => b.labels.cluster === c.labels.cluster && b.value === c.value)?.labels.le);
  const events = Number((await db.pool.query('SELECT count(*) AS n FROM event_log')).rows[0].n);
  const sum = async (m: { get(): Promise<{ values: MetricValues }> }) => (await m.get()).values.reduce((a, v) => a + v.value, 0);
  const processed = await sum(indexer.metrics.transactions);
  const calls = await sum(indexer.metrics.rpcRequests);
  const http = await sum(indexer.metrics.rpcHttpRequests);
  // Absent in an indexer from before the stage counters (this bench run against an older checkout, for a before/after).
  const stageMetric = (indexer.metrics as { stageSeconds?: { get(): Promise<{ values: MetricValues }> } }).stageSeconds;
  const stageValues = stageMetric ? (await stageMetric.get()).values : [];
  if (!stageMetric) console.log('(this indexer has no stage counters: the breakdown below is empty)');
  const stage = (name: string) => stageValues.filter((v) => v.labels.stage === name).reduce((a, v) => a + v.value, 0);
  await indexer.stop();

  const clusters = config.INDEXER_CLUSTERS.length;
  const txPerS = processed / seconds;
  console.log(
    `indexing (backfill, ${clusters} clusters at once, positions=${config.INDEXER_TX_POSITIONS}, RPC_CONCURRENCY=${rpcConcurrency}, RPC_TX_BATCH=${txBatch}, ` +
      `INDEXER_CHUNK_TXS=${config.INDEXER_CHUNK_TXS}): ${processed} successful tx → ${events} events in ${seconds.toFixed(2)} s = ` +
      `${fmt(txPerS)} tx/s, ${fmt(events / seconds)} events/s; ${calls} JSON-RPC calls in ${http} HTTP requests (${(calls / processed).toFixed(2)} calls/tx)`,
  );
  console.log(
    `listing: ${windowSum} signatures in ${windowCount} slot windows (largest per cluster ≤ ${largest.join(', ')}); peak heap ${(peakHeap / 2 ** 20).toFixed(0)} MiB`,
  );

  // The indexer's thread: its wall time split into the timed stages, the rest of its busy time, and idle.
  const wallMs = seconds * 1000;
  const thread: Record<string, number> = {};
  for (const s of THREAD_STAGES) thread[s] = stage(s) * 1000;
  const timedMs = Object.values(thread).reduce((a, b) => a + b, 0);
  thread.other_busy = Math.max(0, elu.active - timedMs);
  thread.idle = elu.idle;
  console.log(`indexer thread (${(wallMs / 1000).toFixed(2)} s, ${(elu.utilization * 100).toFixed(0)} % busy):`);
  const threadShare: Record<string, number> = {};
  for (const [k, ms] of Object.entries(thread)) {
    threadShare[k] = ms / wallMs;
    console.log(`  ${k.padEnd(16)} ${(ms / 1000).toFixed(2).padStart(7)} s  ${pct(ms / wallMs).padStart(5)}  ${(ms / processed).toFixed(3)} ms/tx`);
  }
  // The per-cluster loops (they run at once): the range listed up front, waiting for the next chunk's transactions
  // (its window listed and fetched a chunk ahead), deriving, appending, committing, and what is left (planning,
  // snapshots, discovery, oracle lookback…).
  const loopMs = wallMs * clusters;
  const loop: Record<string, number> = {};
  for (const s of LOOP_STAGES) loop[s] = stage(s) * 1000;
  loop.derive = (stage('decode') + stage('build')) * 1000;
  loop.other = Math.max(0, loopMs - Object.values(loop).reduce((a, b) => a + b, 0));
  console.log(`cluster loops (${clusters} × ${(wallMs / 1000).toFixed(2)} s):`);
  const loopShare: Record<string, number> = {};
  for (const k of ['listing', 'fetch_wait', 'derive', 'append', 'commit', 'other']) {
    loopShare[k] = loop[k] / loopMs;
    console.log(`  ${k.padEnd(16)} ${(loop[k] / 1000).toFixed(2).padStart(7)} s  ${pct(loop[k] / loopMs).padStart(5)}`);
  }
  const reads = { listing_window: stage('listing_window'), fetch: stage('fetch') };
  console.log(`  (read a chunk ahead, overlapping the above: window listing ${reads.listing_window.toFixed(2)} s, fetch ${reads.fetch.toFixed(2)} s)`);
  const cpuTotal = cpu.indexer + cpu.simulator + cpu.postgres;
  console.log(
    `CPU: indexer ${cpu.indexer.toFixed(2)} s, simulator ${cpu.simulator.toFixed(2)} s, Postgres ${cpu.postgres.toFixed(2)} s ` +
      `= ${((cpuTotal / processed) * 1000).toFixed(3)} ms/tx (${(cpuTotal / seconds).toFixed(2)} cores busy of the machine's, shared with whatever else runs)`,
  );

  const endToEnd = {
    case: 'end to end (tx/s, RPC → committed events)',
    events_per_s: txPerS,
    p50_ms: null,
    p99_ms: null,
    baseline: false,
    transactions: processed,
    events,
    seconds,
    rpc_calls: calls,
    http_requests: http,
    thread_share: threadShare,
    loop_share: loopShare,
    read_ahead_seconds: reads,
    cpu_seconds: cpu,
    cpu_ms_per_tx: (cpuTotal / processed) * 1000,
    peak_heap_mib: Math.round(peakHeap / 2 ** 20),
  };

  // Baseline: the same transactions fetched again, parsed and shape-checked, nothing else (the simulator's serving rate).
  const fetchOnly = await fetchOnlyRate(sim.urls, Number(rpcConcurrency), Number(txBatch));
  console.log(`baseline: ${fetchOnly.transactions} transactions fetched again in ${fetchOnly.seconds.toFixed(2)} s (getTransaction batches + JSON.parse only)`);
  report.add({
    case: 'RPC fetch only (getTransaction batches, parsed)',
    events_per_s: fetchOnly.transactions / fetchOnly.seconds,
    p50_ms: null,
    p99_ms: null,
    baseline: true,
    ...fetchOnly,
  });
  report.add(endToEnd);
  report.set('history_seconds', historySeconds);
  report.set('settings', {
    RPC_CONCURRENCY: rpcConcurrency,
    RPC_TX_BATCH: txBatch,
    INDEXER_CHUNK_TXS: config.INDEXER_CHUNK_TXS,
    positions: config.INDEXER_TX_POSITIONS,
  });
  report.write();

  sim.process.kill('SIGTERM');
  await db.drop();
  if (embedded) await embedded.release();
}

/** Every successful signature of both programs, fetched again per cluster at once, with the indexer's RPC client and batch settings. */
async function fetchOnlyRate(urls: Record<ClusterName, string>, concurrency: number, txBatchSize: number): Promise<{ transactions: number; seconds: number }> {
  const rpcs = Object.values(urls).map(
    (url) =>
      new SolanaRpc({
        url,
        commitment: 'confirmed',
        timeoutMs: 30_000,
        rps: 1_000_000,
        concurrency,
        txBatchSize,
        retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 },
      }),
  );
  const lists = await Promise.all(
    rpcs.map(async (rpc) => {
      const signatures = new Set<string>();
      for (const { programId } of HADRON_PROGRAMS) {
        let before: string | undefined;
        for (;;) {
          const page = await rpc.getSignaturesForAddress(programId, { before, limit: 1000 });
          for (const s of page) if (s.err === null) signatures.add(s.signature);
          if (page.length < 1000) break;
          before = page[page.length - 1].signature;
        }
      }
      return [...signatures];
    }),
  );
  const started = performance.now();
  const results = await Promise.all(rpcs.map((rpc, i) => rpc.getTransactions(lists[i])));
  const seconds = (performance.now() - started) / 1000;
  for (const rpc of rpcs) rpc.close();
  return { transactions: results.flat().filter((r) => r.ok).length, seconds };
}

interface CpuSnapshot {
  indexer: number;
  simulator: number;
  /** Per backend pid of the bench's database. */
  postgres: Map<number, number>;
}

/** CPU seconds used so far: this process (all its threads), the simulator's, and the bench database's Postgres backends. */
async function cpuSnapshot(simPid: number, pool: Pool): Promise<CpuSnapshot> {
  const { user, system } = process.cpuUsage();
  const pids = (await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid);
  return { indexer: (user + system) / 1e6, simulator: processCpuSeconds(simPid), postgres: new Map(pids.map((p) => [p, processCpuSeconds(p)])) };
}

function cpuDelta(a: CpuSnapshot, b: CpuSnapshot): { indexer: number; simulator: number; postgres: number } {
  let postgres = 0;
  for (const [pid, s] of b.postgres) postgres += s - (a.postgres.get(pid) ?? 0);
  return { indexer: b.indexer - a.indexer, simulator: b.simulator - a.simulator, postgres };
}

/** The simulator as a separate process (apps never import each other): `SIM_PORT=0`, URLs read from its stdout. */
async function startSimulatorProcess(historySeconds: number): Promise<{ process: ChildProcess; urls: Record<ClusterName, string> }> {
  const env = {
    ...process.env,
    SIM_PORT: '0',
    SIM_LIVE: 'false',
    SIM_POOLS: '8',
    SIM_SEED: 'bench',
    SIM_HISTORY_SECONDS: String(historySeconds),
    SIM_HISTORY_END_MS: '1750000000000',
    LOG_LEVEL: 'warn',
  };
  const nodeArgs = (process.env.BENCH_SIM_NODE_ARGS ?? '').split(' ').filter(Boolean); // e.g. --cpu-prof
  const child = spawn(process.execPath, [...nodeArgs, '-r', './scripts/register-ts.js', 'apps/simulator/src/main.ts'], {
    cwd: resolve(__dirname, '../../..'),
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls: Partial<Record<ClusterName, string>> = {};
  await new Promise<void>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const m of out.matchAll(/^(mainnet-beta|devnet): (http\S+)/gm)) urls[m[1] as 'devnet'] = m[2];
      if (urls['mainnet-beta'] && urls.devnet) ok();
    });
    child.once('exit', (code) => fail(new Error(`simulator exited with ${code}`)));
  });
  return { process: child, urls: urls as Record<ClusterName, string> };
}

async function rpcSlot(url: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] }),
  });
  return ((await res.json()) as { result: number }).result;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (r: number): string => `${(r * 100).toFixed(0)} %`;

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
