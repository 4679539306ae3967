/**
 * End-to-end indexing throughput: the simulated cluster (its own process, over HTTP, JSON-RPC batches) → decode →
 * events → the Postgres event log + cursor commits, the whole backfill of both clusters at once.
 * Prints tx/s, events/s and RPC calls per transaction. Not a timed test: machines are noisy.
 *   node -r ./scripts/register-ts.js apps/indexer/bench/indexing.bench.ts [historySeconds=1800]
 * Uses DATABASE_URL when set, else an embedded Postgres under .data/bench-postgres.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createLogger, eventLogMigrations, openEventLog, parseEnv, startEmbeddedPostgres, type Storage } from '@hadron/platform';
import { createTestDatabase } from '@hadron/platform/testing/test-database';
import { indexerEnvSchema, indexerMigrations, startIndexer } from '../src/index';

async function main(): Promise<void> {
  const historySeconds = Number(process.argv[2] ?? 1800);
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: resolve(__dirname, '../../../.data/bench-postgres'),
        port: 54349,
        database: 'postgres',
        log: createLogger('bench-pg', 'warn'),
      });
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
    RPC_CONCURRENCY: '4',
    RPC_TX_BATCH: '100',
    INDEXER_START_SLOT: '0',
    INDEXER_CHUNK_TXS: '1000',
    INDEXER_TX_POSITIONS: process.env.POSITIONS ?? 'multi',
    INDEXER_REFRESH_SECONDS: '3600',
    INDEXER_PROGRESS_SECONDS: '3600',
  });
  const started = Date.now();
  const indexer = await startIndexer(storage, config, log);
  let peakHeap = 0;
  for (;;) {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    const status = indexer.status();
    if (status.every((s) => s.backfillDone && s.cursorSlot !== null && s.cursorSlot >= heads[s.cluster])) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // The listing is held as page boundaries plus one slot window at a time: the largest window, not the range, is what memory holds.
  const windows = (await indexer.metrics.listingWindow.get()).values as { metricName?: string; labels: Record<string, string | number>; value: number }[];
  const of = (suffix: string) => windows.filter((v) => v.metricName?.endsWith(suffix));
  const windowCount = of('_count').reduce((a, v) => a + v.value, 0);
  const windowSum = of('_sum').reduce((a, v) => a + v.value, 0);
  // Per cluster, the smallest bucket holding every window.
  const largest = of('_count').map((c) => of('_bucket').find((b) => b.labels.cluster === c.labels.cluster && b.value === c.value)?.labels.le);
  const seconds = (Date.now() - started) / 1000;
  const events = Number((await db.pool.query('SELECT count(*) AS n FROM event_log')).rows[0].n);
  const processed = (await indexer.metrics.transactions.get()).values.reduce((a, v) => a + v.value, 0);
  const calls = (await indexer.metrics.rpcRequests.get()).values.reduce((a, v) => a + v.value, 0);
  const http = (await indexer.metrics.rpcHttpRequests.get()).values.reduce((a, v) => a + v.value, 0);
  await indexer.stop();
  console.log(
    `indexing (backfill, both clusters, positions=${config.INDEXER_TX_POSITIONS}): ${processed} successful tx → ${events} events in ${seconds.toFixed(2)} s = ` +
      `${Math.round(processed / seconds).toLocaleString('en-US')} tx/s, ${Math.round(events / seconds).toLocaleString('en-US')} events/s; ` +
      `${calls} JSON-RPC calls in ${http} HTTP requests (${(calls / processed).toFixed(2)} calls/tx)`,
  );
  console.log(
    `listing: ${windowSum} signatures in ${windowCount} slot windows (largest per cluster ≤ ${largest.join(', ')}); peak heap ${(peakHeap / 2 ** 20).toFixed(0)} MiB`,
  );
  sim.process.kill('SIGTERM');
  await db.drop();
  if (embedded) await embedded.release();
}

/** The simulator as a separate process (apps never import each other): `SIM_PORT=0`, URLs read from its stdout. */
async function startSimulatorProcess(historySeconds: number): Promise<{ process: ChildProcess; urls: Record<'mainnet-beta' | 'devnet', string> }> {
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
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'apps/simulator/src/main.ts'], {
    cwd: resolve(__dirname, '../../..'),
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls: Partial<Record<'mainnet-beta' | 'devnet', string>> = {};
  await new Promise<void>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (const m of out.matchAll(/^(mainnet-beta|devnet): (http\S+)/gm)) urls[m[1] as 'devnet'] = m[2];
      if (urls['mainnet-beta'] && urls.devnet) ok();
    });
    child.once('exit', (code) => fail(new Error(`simulator exited with ${code}`)));
  });
  return { process: child, urls: urls as Record<'mainnet-beta' | 'devnet', string> };
}

async function rpcSlot(url: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] }),
  });
  return ((await res.json()) as { result: number }).result;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
