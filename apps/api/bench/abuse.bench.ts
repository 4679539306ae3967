/**
 * Abuse benchmark: `npm run bench:abuse [-- --json <file>]`. Loopback only, bounded duration.
 *
 * The hostile mix the hardening probe found starving the pool list — 30 connections asking for
 * volume history over 100 years (36,500 zero-filled days), raw midprice pages of 1,000 and fees
 * over `all` — next to normal pool-list traffic (10 connections), against two API processes on
 * the same generated dataset (bench-dataset.ts):
 * - `unguarded` (the in-run baseline): per-pool queries unbounded in concurrency, no back-pressure;
 * - `guarded`: the API's defaults (API_HEAVY_CONCURRENCY, API_HEAVY_QUEUE, API_MAX_EVENT_LOOP_DELAY_MS).
 * For each: /pools alone (before), /pools with the hostile mix (during), /pools alone again
 * (after); the pool list's req/s, p50 and p99, the API process's peak RSS, and what the hostile
 * clients got. Prints a table with ratios against the `before` phase of the same process.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { BIG_POOL, MAINNET_POOLS, poolAddress } from './bench-dataset';
import { serveApi } from './bench-servers';
import { jsonArg } from '@hadron/platform/testing/bench-args';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { child, prepareDataset, type Server } from './bench-setup';

const PHASE_S = Number(process.env.BENCH_DURATION_S ?? 8);
const NORMAL_CONNECTIONS = 10;
const HOSTILE_CONNECTIONS = 30;
const log = (m: string) => process.stdout.write(`${m}\n`);

const UNGUARDED = { API_HEAVY_CONCURRENCY: '100000', API_HEAVY_QUEUE: '0', API_MAX_EVENT_LOOP_DELAY_MS: '0' };
const GUARDED = {};

interface Phase {
  server: string;
  phase: 'before' | 'during' | 'after';
  rps: number;
  p50: number;
  p99: number;
  rssMb: number;
  hostile?: { requests: number; ok: number; unavailable: number; other: number; errors: number };
}

async function main(): Promise<void> {
  if (process.argv[2] === '--serve-api') return serveApi(process.argv[3], process.argv[4]);
  const jsonFile = jsonArg();
  const { url, stats, done } = await prepareDataset(log);
  const children: ChildProcess[] = [];
  const phases: Phase[] = [];
  try {
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const anyPool = () => poolAddress(1 + rnd(MAINNET_POOLS));
    const hostilePaths = [
      () => `/pools/${anyPool()}/volume/history?start_time=0&end_time=3153600000`, // 36,500 days
      () => `/pools/${BIG_POOL}/midprice/history?timeframe=raw&limit=1000&cursor=${Math.floor(Date.now() / 1000) - rnd(30 * 86_400)}`,
      () => `/pools/${anyPool()}/fees?interval=all`,
    ];
    for (const [name, env] of [
      ['unguarded', UNGUARDED],
      ['guarded', GUARDED],
    ] as const) {
      const server = await child(__filename, ['--serve-api', url, JSON.stringify(env)], children);
      log(`\n${name}: ${JSON.stringify(env)}`);
      await pools(server, 2); // warm-up
      for (const phase of ['before', 'during', 'after'] as const) {
        const rss = sampleRss(server.pid);
        const hostile = phase === 'during' ? hammer(server, HOSTILE_CONNECTIONS, () => hostilePaths[rnd(3)](), PHASE_S + 1) : undefined;
        if (hostile) await new Promise((r) => setTimeout(r, 500)); // let the mix build up first
        const normal = await pools(server, PHASE_S);
        const h = await hostile;
        const p: Phase = {
          server: name,
          phase,
          rps: normal.rps,
          p50: normal.p50,
          p99: normal.p99,
          rssMb: rss.stop(),
          hostile: h && { requests: h.requests, ok: h.ok, unavailable: h.unavailable, other: h.other, errors: h.errors },
        };
        phases.push(p);
        log(
          `  ${phase.padEnd(7)} /pools ${p.rps.toFixed(0).padStart(6)} req/s  p50 ${p.p50} ms  p99 ${p.p99} ms  peak RSS ${p.rssMb.toFixed(0)} MB${h ? `  hostile: ${h.requests} requests, ${h.ok} 200, ${h.unavailable} 503, ${h.other} other, ${h.errors} errors` : ''}${normal.non2xx ? `  (/pools non-2xx ${normal.non2xx})` : ''}`,
        );
      }
      children.pop()!.kill('SIGTERM');
    }

    log('\n| server | phase | /pools req/s | p50 ms | p99 ms | p99 vs before | peak RSS MB | hostile 200 / 503 / other |');
    log('|---|---|---:|---:|---:|---:|---:|---|');
    for (const p of phases) {
      const before = phases.find((b) => b.server === p.server && b.phase === 'before')!;
      log(
        `| ${p.server} | ${p.phase} | ${p.rps.toFixed(0)} | ${p.p50} | ${p.p99} | ${(p.p99 / Math.max(before.p99, 1)).toFixed(1)}× | ${p.rssMb.toFixed(0)} | ${p.hostile ? `${p.hostile.ok} / ${p.hostile.unavailable} / ${p.hostile.other}` : ''} |`,
      );
    }
    // Each phase against its own server's `before` (the baseline just before it in the report).
    const report = new BenchReport('abuse');
    report.set('dataset', stats);
    log('');
    for (const p of phases) {
      report.add({
        case: `${p.server} /pools ${p.phase}`,
        rps: Math.round(p.rps),
        p50_ms: p.p50,
        p99_ms: p.p99,
        baseline: p.phase === 'before',
        rss_mb: Math.round(p.rssMb),
        ...(p.hostile ? { hostile: p.hostile } : {}),
      });
    }
    report.write(jsonFile);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await done();
  }
}

function pools(server: Server, seconds: number) {
  return hammer(server, NORMAL_CONNECTIONS, () => '/pools', seconds);
}

async function hammer(server: Server, connections: number, path: () => string, seconds: number) {
  const r = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests: [{ method: 'GET', setupRequest: (req: Record<string, unknown>) => ({ ...req, path: path() }) }],
  });
  const unavailable = r.statusCodeStats?.['503']?.count ?? 0;
  return {
    rps: r.requests.average,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    ok: r['2xx'],
    unavailable,
    other: r.non2xx - unavailable,
  };
}

/** Peak resident set size of `pid` (MB), sampled every 100 ms until stop(). */
function sampleRss(pid: number): { stop(): number } {
  let peak = 0;
  const read = () => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) peak = Math.max(peak, Number(m[1]) / 1024);
  };
  read();
  const timer = setInterval(read, 100);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
