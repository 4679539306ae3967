/**
 * API benchmark (DESIGN §6): `npm run bench:api`. Loopback only, bounded duration.
 *
 * 1. A generated dataset (bench-dataset.ts: 1,200 pools, >1.5 M swaps, >1.2 M midprice points)
 *    in a fresh database: DATABASE_URL's server, or an embedded Postgres under .data/bench-postgres.
 * 2. The API and a bare Fastify server (same pool-list JSON from memory) in child processes;
 *    autocannon (50 connections, BENCH_DURATION_S each, distinct queries) against every endpoint.
 * 3. Sequential latency of fees and sampled midprice on a pool with 10^4 vs 10^6 swaps/points.
 * 4. BENCH_REPLICA=1: a streaming replica of the bench server (startStreamingReplica), a second API
 *    reading it (as DATABASE_READ_URL does), and the per-pool endpoints against it, next to the primary's.
 * Prints tables; writes bench-results/api-bench.json.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { startStreamingReplica } from '@hadron/platform/testing/streaming-replica';
import { measureCpu, type CpuSplit } from './cpu-time';
import { BIG, BIG_POOL, MAINNET_POOLS, poolAddress, SMALL, SMALL_POOL } from './bench-dataset';
import { serveApi, serveBare } from './bench-servers';
import { child, prepareDataset, ROOT, type Server } from './bench-setup';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const CONNECTIONS = 50;
const log = (m: string) => process.stdout.write(`${m}\n`);

interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpu: CpuSplit;
}

async function main(): Promise<void> {
  const role = process.argv[2];
  if (role === '--serve-api') return serveApi(process.argv[3], process.argv[4]);
  if (role === '--serve-bare') return serveBare(process.argv[3]);

  const { url, stats, done } = await prepareDataset(log);
  const children: ChildProcess[] = [];
  try {
    // BENCH_API_ENV='{"API_HEAVY_CONCURRENCY":"8"}' runs the API with other settings.
    const api = await child(__filename, ['--serve-api', url, process.env.BENCH_API_ENV ?? '{}'], children);
    const apiUrl = api.url;
    const listJson = await (await fetch(`${apiUrl}/pools`)).text();
    const jsonFile = resolve(ROOT, 'bench-results/pool-list.json');
    mkdirSync(resolve(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(jsonFile, listJson);
    const bare = await child(__filename, ['--serve-bare', jsonFile], children);

    const rnd = (n: number) => Math.floor(Math.random() * n);
    const anyPool = () => poolAddress(1 + rnd(MAINNET_POOLS));
    const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)];
    const load: LoadResult[] = [];
    const run = async (name: string, server: Server, path: () => string) => {
      await hammer(server.url, path, 2); // warm-up (JIT, prepared statements, caches)
      const r = await measureCpu(server.pid, () => hammer(server.url, path, DURATION_S));
      load.push({ name, ...r });
      const cpu =
        r.cpu.server || r.cpu.postgres
          ? `  CPU/req: server ${r.cpu.server.toFixed(2)} ms, postgres ${r.cpu.postgres.toFixed(2)} ms, load gen ${r.cpu.loadGenerator.toFixed(2)} ms`
          : '';
      log(
        `  ${name.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms${r.non2xx || r.errors ? `  (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}${cpu}`,
      );
    };
    log(`\nthroughput: ${CONNECTIONS} connections, ${DURATION_S} s per endpoint, loopback`);
    await run('bare Fastify: pool list object', bare, () => '/pools');
    await run('bare Fastify: pool list pre-serialized', bare, () => '/pools-text');
    await run('API GET /pools (default page)', api, () => '/pools');
    await run('API GET /pools (random filters/sort/page)', api, () =>
      pick([
        '/pools?sort_by=tvl:desc&page=' + (1 + rnd(50)),
        '/pools?query=tk1' + rnd(100),
        '/pools?token_y=So11111111111111111111111111111111111111112&sort_by=fees_24h:asc',
        '/pools?pool_state=paused&page_size=50',
        '/pools?cluster=devnet&page=' + (1 + rnd(10)),
      ]),
    );
    await run('API GET /pools/:a/fees (random pool, interval)', api, () => `/pools/${anyPool()}/fees?interval=${pick(['1h', '24h', '7d', '30d', 'all'])}`);
    await run('API GET /pools/:a/midprice/history (sampled)', api, () => `/pools/${anyPool()}/midprice/history?timeframe=${pick(['5m', '30m', '1h', '4h'])}`);
    await run('API GET /pools/:a/midprice/history (raw)', api, () => `/pools/${anyPool()}/midprice/history?timeframe=raw&limit=${pick([50, 200])}`);
    await run('API GET /pools/:a/volume/history', api, () => `/pools/${anyPool()}/volume/history`);

    log(
      `\nlatency vs rows (sequential, 1 connection): SMALL = ${SMALL.count.toLocaleString('en')} swaps+points, BIG = ${BIG.count.toLocaleString('en')}, same ~35 days (same buckets, 100× the rows)`,
    );
    const scaling: Array<{ query: string; small: Lat; big: Lat }> = [];
    for (const q of [
      'fees?interval=1h',
      'fees?interval=24h',
      'fees?interval=7d',
      'fees?interval=30d',
      'fees?interval=all',
      'midprice/history?timeframe=1h',
      'midprice/history?timeframe=1m',
      'midprice/history?timeframe=4h&start_time=0',
      'midprice/history?timeframe=raw&limit=200',
      'volume/history',
    ]) {
      const small = await sequential(`${apiUrl}/pools/${SMALL_POOL}/${q}`, 300);
      const big = await sequential(`${apiUrl}/pools/${BIG_POOL}/${q}`, 300);
      scaling.push({ query: q, small, big });
      log(
        `  ${q.padEnd(44)} SMALL p50 ${small.p50.toFixed(2)} / p99 ${small.p99.toFixed(2)} ms   BIG p50 ${big.p50.toFixed(2)} / p99 ${big.p99.toFixed(2)} ms`,
      );
    }

    const replicaLoad = process.env.BENCH_REPLICA === '1' ? await againstReplica(url, load, children) : [];

    const bareObj = load[0].rps;
    log('\nsummary');
    log('| endpoint | req/s | p50 ms | p99 ms | vs bare (object) | CPU ms/req server | postgres | load gen |');
    log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of load) {
      const c = r.cpu;
      log(
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${((r.rps / bareObj) * 100).toFixed(0)} % | ${c.server.toFixed(2)} | ${c.postgres.toFixed(2)} | ${c.loadGenerator.toFixed(2)} |`,
      );
    }
    log('\n| query | SMALL p50 | SMALL p99 | BIG p50 | BIG p99 |');
    log('|---|---:|---:|---:|---:|');
    for (const s of scaling) log(`| ${s.query} | ${s.small.p50.toFixed(2)} | ${s.small.p99.toFixed(2)} | ${s.big.p50.toFixed(2)} | ${s.big.p99.toFixed(2)} |`);
    writeFileSync(
      resolve(ROOT, 'bench-results/api-bench.json'),
      JSON.stringify({ at: new Date().toISOString(), dataset: stats, load, scaling, replica: replicaLoad }, null, 2),
    );
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await done();
  }
}

/** The per-pool endpoints again, against an API reading a streaming replica of the bench server. */
async function againstReplica(url: string, primaryLoad: readonly LoadResult[], children: ChildProcess[]): Promise<LoadResult[]> {
  log('\nstreaming replica of the bench server (pg_basebackup) …');
  const t = Date.now();
  const replica = await startStreamingReplica({ primaryUrl: url });
  try {
    log(`replica up in ${((Date.now() - t) / 1000).toFixed(0)} s on port ${replica.port}`);
    const api = await child(__filename, ['--serve-api', replica.urlFor(new URL(url).pathname.slice(1)), process.env.BENCH_API_ENV ?? '{}'], children);
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)];
    const anyPool = () => poolAddress(1 + rnd(MAINNET_POOLS));
    const endpoints: Array<[string, () => string]> = [
      ['API GET /pools/:a/fees (random pool, interval)', () => `/pools/${anyPool()}/fees?interval=${pick(['1h', '24h', '7d', '30d', 'all'])}`],
      ['API GET /pools/:a/midprice/history (sampled)', () => `/pools/${anyPool()}/midprice/history?timeframe=${pick(['5m', '30m', '1h', '4h'])}`],
      ['API GET /pools/:a/midprice/history (raw)', () => `/pools/${anyPool()}/midprice/history?timeframe=raw&limit=${pick([50, 200])}`],
      ['API GET /pools/:a/volume/history', () => `/pools/${anyPool()}/volume/history`],
    ];
    const out: LoadResult[] = [];
    for (const [name, path] of endpoints) {
      await hammer(api.url, path, 2);
      out.push({ name, ...(await measureCpu(api.pid, () => hammer(api.url, path, DURATION_S))) });
    }
    log('\n| per-pool endpoint | primary req/s | p50 | p99 | replica req/s | p50 | p99 |');
    log('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of out) {
      const p = primaryLoad.find((l) => l.name === r.name)!;
      log(
        `| ${r.name} | ${p.rps.toFixed(0)} | ${p.p50} | ${p.p99} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} |${r.non2xx || r.errors ? ` (non-2xx ${r.non2xx}, errors ${r.errors})` : ''}`,
      );
    }
    return out;
  } finally {
    await replica.stop();
  }
}

async function hammer(base: string, path: () => string, seconds: number): Promise<Omit<LoadResult, 'name' | 'cpu'> & { requests: number }> {
  const r = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: path() }) }],
  });
  return { rps: r.requests.average, requests: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

interface Lat {
  p50: number;
  p99: number;
}

async function sequential(url: string, n: number): Promise<Lat> {
  for (let i = 0; i < 20; i++) await (await fetch(url)).arrayBuffer();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} → ${res.status}`);
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(n * 0.5)], p99: ms[Math.min(n - 1, Math.floor(n * 0.99))] };
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
