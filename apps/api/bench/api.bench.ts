/**
 * API benchmark (DESIGN §6): `npm run bench:api [-- --json <file>]`. Loopback only, bounded
 * duration (BENCH_DURATION_S per case, 1 s warm-up; about 25 cases).
 *
 * 1. A generated dataset (bench-dataset.ts: 1,200 pools, >1.5 M swaps, >1.2 M midprice points)
 *    in a fresh database: DATABASE_URL's server, or an embedded Postgres under .data/bench-postgres.
 * 2. Child processes: the API with its defaults, the API without the response cache, and a bare
 *    Fastify server (the same pool-list JSON from memory: the baseline every ratio is against).
 *    autocannon, 50 connections: the pool list; every per-pool endpoint with distinct queries
 *    (random pool with default windows, then the SMALL pool, 10^4 swaps and points, and the BIG
 *    pool, 10^6, with random windows), against the API without the cache; and each endpoint's
 *    same URL hammered ("repeated", a pool polled by many clients) against the default API.
 * 3. Fees p50 for `1h` vs `all` on the BIG pool (one at a time, in turn, 1 connection): flat within 1.5×. Then
 *    flat in rows: the same fees and sampled-midprice requests on SMALL, BIG and, with
 *    BENCH_API_HUGE=1, a 10⁷-row HUGE pool (`flatness`).
 * 4. BENCH_REPLICA=1: a streaming replica of the bench server (startStreamingReplica), a second API
 *    reading it (as DATABASE_READ_URL does), and the per-pool endpoints against it, next to the primary's.
 * Prints each case with its ratio to the baseline, then a table with CPU per request (API process,
 * the bench database's Postgres backends, load generator); writes BenchReport's JSON to `--json
 * <file>` (default bench-results/api-bench.json).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import { jsonArg } from '@hadron/platform/testing/bench-args';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { startStreamingReplica } from '@hadron/platform/testing/streaming-replica';
import { measureCpu, type CpuSplit } from '@hadron/platform/testing/cpu-time';
import { BIG, BIG_POOL, HUGE, HUGE_POOL, MAINNET_POOLS, poolAddress, SMALL, SMALL_POOL } from './bench-dataset';
import { serveApi, serveBare } from './bench-servers';
import { child, prepareDataset, ROOT, type Server } from './bench-setup';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const WARMUP_S = 1;
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

  const jsonFile = jsonArg();
  const { url, stats, done } = await prepareDataset(log);
  const children: ChildProcess[] = [];
  const report = new BenchReport('api');
  report.set('dataset', stats);
  report.set('connections', CONNECTIONS);
  report.set('duration_s', DURATION_S);
  try {
    // BENCH_API_ENV='{"API_HEAVY_CONCURRENCY":"8"}' runs the API with other settings. Distinct queries
    // go to an API without the response cache (what every first request costs); repeated ones to the default.
    const apiEnv = JSON.parse(process.env.BENCH_API_ENV ?? '{}') as Record<string, string>;
    const api = await child(__filename, ['--serve-api', url, JSON.stringify(apiEnv)], children);
    const uncached = await child(__filename, ['--serve-api', url, JSON.stringify({ ...apiEnv, API_RESPONSE_CACHE_MAX_ENTRIES: '0' })], children);
    const listJson = await (await fetch(`${api.url}/pools`)).text();
    const jsonFile0 = resolve(ROOT, 'bench-results/pool-list.json');
    mkdirSync(resolve(ROOT, 'bench-results'), { recursive: true });
    writeFileSync(jsonFile0, listJson);
    const bare = await child(__filename, ['--serve-bare', jsonFile0], children);

    const rnd = (n: number) => Math.floor(Math.random() * n);
    const anyPool = () => poolAddress(1 + rnd(MAINNET_POOLS));
    const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)];
    const now = () => Math.floor(Date.now() / 1000);
    /** An end time somewhere in the dataset's last 30 days: no two distinct queries share a window. */
    const anyEnd = () => now() - rnd(30 * 86_400);
    const weekEnding = (end: number) => `?start_time=${end - 7 * 86_400}&end_time=${end}`;
    const load: LoadResult[] = [];
    const run = async (name: string, server: Server, path: () => string, baseline = false) => {
      await hammer(server.url, path, WARMUP_S); // JIT, prepared statements, caches
      const r = await measureCpu(server.pid, () => hammer(server.url, path, DURATION_S), server === bare ? undefined : url);
      load.push({ name, ...r });
      // A case answered with errors measures the error path, not the endpoint: say so next to its figures.
      if (r.non2xx || r.errors) log(`  warning: ${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors of ${Math.round(r.rps * DURATION_S)} requests`);
      report.add({
        case: name,
        rps: Math.round(r.rps),
        p50_ms: r.p50,
        p99_ms: r.p99,
        baseline,
        cpu_ms_per_req: { server: round(r.cpu.server), postgres: round(r.cpu.postgres), load_generator: round(r.cpu.loadGenerator) },
        ...(r.non2xx || r.errors ? { non2xx: r.non2xx, errors: r.errors } : {}),
      });
    };
    log(
      `\nthroughput: ${CONNECTIONS} connections, ${DURATION_S} s per case, loopback; CPU ms/req in the JSON (API process, its database's backends, load generator)`,
    );
    await run('bare Fastify: pool list object', bare, () => '/pools', true);
    await run('bare Fastify: pool list pre-serialized', bare, () => '/pools-text');
    await run('GET /pools (default page)', api, () => '/pools');
    await run('GET /pools (random filters/sort/page)', api, () =>
      pick([
        '/pools?sort_by=tvl:desc&page=' + (1 + rnd(50)),
        '/pools?query=tk1' + rnd(100),
        '/pools?token_y=So11111111111111111111111111111111111111112&sort_by=fees_24h:asc',
        '/pools?pool_state=paused&page_size=50',
        '/pools?cluster=devnet&page=' + (1 + rnd(10)),
      ]),
    );

    // Per-pool endpoints, distinct queries: the default windows of a random pool (~500 swaps,
    // 200 points), then the SMALL (10^4 rows) and BIG (10^6 rows) pools with random windows.
    const perPool = (pool: () => string, windowed: boolean): Array<[string, () => string]> => [
      ['GET /pools/:a', () => `/pools/${pool()}${rnd(2) ? '?raw_amounts=string' : ''}`],
      ['fees (1h/24h/7d/30d/all)', () => `/pools/${pool()}/fees?interval=${pick(['1h', '24h', '7d', '30d', 'all'])}`],
      [
        'midprice sampled (5m–4h)',
        () => `/pools/${pool()}/midprice/history?timeframe=${pick(['5m', '30m', '1h', '4h'])}${windowed ? `&end_time=${anyEnd()}` : ''}`,
      ],
      ['midprice raw (50/200)', () => `/pools/${pool()}/midprice/history?timeframe=raw&limit=${pick([50, 200])}${windowed ? `&end_time=${anyEnd()}` : ''}`],
      // A window of its own (the default start is 7 days before now: with only end_time, most ends would come before it, a 400).
      ['volume history', () => `/pools/${pool()}/volume/history${windowed ? weekEnding(anyEnd()) : ''}`],
    ];
    for (const [name, path] of perPool(anyPool, false)) await run(`${name}: random pool, distinct`, uncached, path);
    for (const [label, pool] of [
      ['SMALL', SMALL_POOL],
      ['BIG', BIG_POOL],
    ] as const) {
      for (const [name, path] of perPool(() => pool, true)) await run(`${name}: ${label} pool, distinct`, uncached, path);
    }
    // The same URL hammered (a pool polled by many clients): served from the response cache.
    for (const [name, path] of [
      ['GET /pools/:a', `/pools/${BIG_POOL}`],
      ['fees (24h)', `/pools/${BIG_POOL}/fees?interval=24h`],
      ['midprice sampled (1h)', `/pools/${BIG_POOL}/midprice/history?timeframe=1h`],
      ['midprice raw (200)', `/pools/${BIG_POOL}/midprice/history?timeframe=raw&limit=200`],
      ['volume history', `/pools/${BIG_POOL}/volume/history`],
    ] as const) {
      await run(`${name}: BIG pool, repeated`, api, () => path);
    }

    // Fees cost must not grow with the window (DESIGN §6: flat): 1h vs all on the BIG pool, one connection, no cache.
    log(`\nfees on the BIG pool (${BIG.count.toLocaleString('en')} swaps), one request at a time, 1h and all in turn, 1 connection, no cache:`);
    const intervals = ['1h', 'all'];
    const fees = await inTurn(
      uncached.url,
      intervals.map((interval) => () => `/pools/${BIG_POOL}/fees?interval=${interval}`),
      300,
    );
    for (const [i, interval] of intervals.entries()) {
      const lat = fees[i];
      report.add({
        case: `fees ${interval}: BIG pool, sequential`,
        rps: Math.round(1000 / lat.mean),
        p50_ms: round(lat.p50),
        p99_ms: round(lat.p99),
        baseline: false,
      });
    }
    const flat = fees[1].p50 / fees[0].p50;
    report.set('fees_all_vs_1h_p50', round(flat));
    log(`  fees p50 all / 1h = ${flat.toFixed(2)}× (flat: within 1.5×) ${flat <= 1.5 ? 'met' : 'NOT met'}`);
    log(`  (SMALL = ${SMALL.count.toLocaleString('en')} swaps and points, BIG = ${BIG.count.toLocaleString('en')}, over the same ~35 days)`);
    await flatness(uncached.url, stats.huge, anyEnd, report);

    const replicaLoad = process.env.BENCH_REPLICA === '1' ? await againstReplica(url, load, children) : [];
    if (replicaLoad.length) report.set('replica', replicaLoad);

    log('\n| case | req/s | p50 ms | p99 ms | vs bare | CPU ms/req API | Postgres | load gen |');
    log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of load) {
      const c = r.cpu;
      const ratio = report.ratio(report.cases.find((x) => x.case === r.name)!);
      log(
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${ratio === undefined ? '' : `${(ratio * 100).toFixed(0)} %`} | ${c.server.toFixed(2)} | ${c.postgres.toFixed(2)} | ${c.loadGenerator.toFixed(2)} |`,
      );
    }
    report.write(jsonFile ?? resolve(ROOT, 'bench-results/api-bench.json'));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await done();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Requests per pool and request shape in the flatness check. */
const FLAT_REQUESTS = 100;

/**
 * DESIGN §6: fees and sampled-midprice latency flat from 10⁴ to 10⁷ swaps/points, cost growing
 * with buckets, not rows. The same requests (each timeframe with the same random windows, each
 * fees interval) on SMALL (10⁴), BIG (10⁶) and, when generated (BENCH_API_HUGE=1), HUGE (10⁷),
 * whose rows span the same ~35 days: one connection, no cache, the pools taken in turn request by
 * request so that a machine slowing down weighs on each alike. Reports, per endpoint, the largest
 * ratio of a shape's p50 to SMALL's (`<endpoint>_<pool>_vs_small_p50`; flat: within 1.5×).
 */
async function flatness(base: string, huge: boolean, anyEnd: () => number, report: BenchReport): Promise<void> {
  const pools: Array<[string, string]> = [['SMALL', SMALL_POOL], ['BIG', BIG_POOL], ...(huge ? ([['HUGE', HUGE_POOL]] as Array<[string, string]>) : [])];
  const others = pools.slice(1); // each compared with SMALL
  const ends = Array.from({ length: FLAT_REQUESTS }, anyEnd);
  const endpoints: Array<[string, Array<[string, (pool: string, end: number) => string]>]> = [
    ['midprice_sampled', ['5m', '30m', '1h', '4h'].map((tf) => [tf, (pool, end) => `/pools/${pool}/midprice/history?timeframe=${tf}&end_time=${end}`])],
    ['fees', ['1h', '24h', '7d', '30d', 'all'].map((interval) => [interval, (pool) => `/pools/${pool}/fees?interval=${interval}`])],
  ];
  log(
    `\nflat in rows (DESIGN §6): p50 ms of the same ${FLAT_REQUESTS} requests per shape, sequential, 1 connection, no cache; ` +
      `SMALL ${SMALL.count.toLocaleString('en')}, BIG ${BIG.count.toLocaleString('en')}${huge ? `, HUGE ${HUGE.count.toLocaleString('en')}` : ' (HUGE, 10⁷: BENCH_API_HUGE=1)'} swaps and points`,
  );
  log(`| endpoint | shape | ${[...pools.map(([name]) => name), ...others.map(([name]) => `${name} / SMALL`)].join(' | ')} |`);
  log(`|---|---|${'---:|'.repeat(pools.length + others.length)}`);
  const detail: Record<string, Record<string, Record<string, number>>> = {};
  for (const [endpoint, shapes] of endpoints) {
    const worst: Record<string, number> = {};
    detail[endpoint] = {};
    for (const [shape, path] of shapes) {
      const lats = await inTurn(
        base,
        pools.map(
          ([, pool]) =>
            (i: number) =>
              path(pool, ends[i]),
        ),
        FLAT_REQUESTS,
      );
      const p50 = lats.map((l) => l.p50);
      const ratios = p50.slice(1).map((v) => v / p50[0]);
      others.forEach(([name], i) => (worst[name] = Math.max(worst[name] ?? 0, ratios[i])));
      detail[endpoint][shape] = Object.fromEntries(pools.map(([name], i) => [name, round(p50[i])]));
      log(`| ${endpoint} | ${shape} | ${p50.map((v) => v.toFixed(2)).join(' | ')} | ${ratios.map((r) => `${r.toFixed(2)}×`).join(' | ')} |`);
    }
    for (const [name, ratio] of Object.entries(worst)) report.set(`${endpoint}_${name.toLowerCase()}_vs_small_p50`, round(ratio));
  }
  report.set('flatness_p50_ms', detail);
}

/** The per-pool endpoints again, against an API reading a streaming replica of the bench server. */
async function againstReplica(url: string, primaryLoad: readonly LoadResult[], children: ChildProcess[]): Promise<LoadResult[]> {
  log('\nstreaming replica of the bench server (pg_basebackup) …');
  const t = Date.now();
  const replica = await startStreamingReplica({ primaryUrl: url });
  try {
    log(`replica up in ${((Date.now() - t) / 1000).toFixed(0)} s on port ${replica.port}`);
    const env = { ...(JSON.parse(process.env.BENCH_API_ENV ?? '{}') as Record<string, string>), API_RESPONSE_CACHE_MAX_ENTRIES: '0' };
    const api = await child(__filename, ['--serve-api', replica.urlFor(new URL(url).pathname.slice(1)), JSON.stringify(env)], children);
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)];
    const anyPool = () => poolAddress(1 + rnd(MAINNET_POOLS));
    const endpoints: Array<[string, () => string]> = [
      ['fees (1h/24h/7d/30d/all): random pool, distinct', () => `/pools/${anyPool()}/fees?interval=${pick(['1h', '24h', '7d', '30d', 'all'])}`],
      ['midprice sampled (5m–4h): random pool, distinct', () => `/pools/${anyPool()}/midprice/history?timeframe=${pick(['5m', '30m', '1h', '4h'])}`],
      ['midprice raw (50/200): random pool, distinct', () => `/pools/${anyPool()}/midprice/history?timeframe=raw&limit=${pick([50, 200])}`],
      ['volume history: random pool, distinct', () => `/pools/${anyPool()}/volume/history`],
    ];
    const out: LoadResult[] = [];
    for (const [name, path] of endpoints) {
      await hammer(api.url, path, WARMUP_S);
      out.push({ name, ...(await measureCpu(api.pid, () => hammer(api.url, path, DURATION_S), url)) });
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
  mean: number;
}

/**
 * Latency of `n` requests per path, one at a time on one connection, the paths taken in turn
 * (request i of each, then i + 1…), so that a machine slowing down during the measurement (an
 * autovacuum after the dataset's generation, another tenant) weighs on each alike. `paths[k](i)`
 * is the k-th path's i-th request; ten rounds of request 0 warm up first.
 */
async function inTurn(base: string, paths: ReadonlyArray<(i: number) => string>, n: number): Promise<Lat[]> {
  const ms: number[][] = paths.map(() => []);
  for (let i = -10; i < n; i++) {
    for (const [k, path] of paths.entries()) {
      const url = `${base}${path(Math.max(0, i))}`;
      const t = process.hrtime.bigint();
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${url} → ${res.status}`);
      if (i >= 0) ms[k].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  return ms.map((xs) => {
    xs.sort((a, b) => a - b);
    return { p50: xs[Math.floor(n * 0.5)], p99: xs[Math.min(n - 1, Math.floor(n * 0.99))], mean: xs.reduce((a, b) => a + b, 0) / n };
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
