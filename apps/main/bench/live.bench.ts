/**
 * Live latency: a swap on chain → visible in the API. `npm run bench:live [-- --json <file>]`.
 *
 * The simulated cluster runs in this process, driven slot by slot on the wall clock as its own live
 * mode does (400 ms slots, `confirmed` one slot after production), so the bench sets the swap rate
 * (50/s, 500/s) and knows, on the simulator's own clock, when each swap became confirmed: the moment
 * the slot after it was produced, after which its RPC serves it at `confirmed`. The app is
 * `apps/main/src/main.ts` — what `npm start` runs, with its Node flags: indexer, projector and API in one process — in a
 * child process of its own (own process group, stopped with SIGTERM as a process manager does), on
 * a fresh database of DATABASE_URL, pointed at the simulator over loopback HTTP (and its websocket
 * for the "websocket" cases). The observer shares nothing with the indexer and runs in a worker
 * thread (the simulator's slot production here would otherwise delay its clock): it polls the API's
 * `GET /pools/{address}/fees?interval=all` over HTTP and reads `totals.swap_count`; the k-th new
 * swap of a pool is visible once the count reached the count at the start + k (the log is applied in
 * chain order, so what is visible is a prefix). Midprice history does not serve swaps (it holds
 * oracle updates), so the fee count is the per-swap signal.
 *
 * Latency of a swap = the observer's receipt of the first response that counts it − its confirmation.
 * Baseline, measured in the same run: the same poller on the simulator's own RPC (`getSlot` at
 * `confirmed`), i.e. the floor this way of observing can see (poll cadence + one round trip).
 *
 * Env: BENCH_LIVE_SWAPS (1000: at least this many measured swaps per case), BENCH_LIVE_MIN_SECONDS (10),
 * BENCH_LIVE_RATES ("50,500"), BENCH_LIVE_MODES ("default,websocket"), BENCH_LIVE_POLL_MS (20: pause
 * between an observer's requests), BENCH_LIVE_TIMEOUT_S (60: a swap not visible this long after the
 * last one is counted lost), BENCH_LIVE_DIST=1 (run the built dist/apps/main/src/main.js instead of
 * the sources, transpiled as they load: no build needed), BENCH_LIVE_APP_LOG=<prefix> (the app's output
 * to <prefix>.<mode>-<port>.log), BENCH_LIVE_KEEP_DB=1 (keep each case's database, to look inside;
 * drop it yourself). The app runs with its defaults but for what a local simulator calls for (as
 * `npm run demo`: RPC_RPS lifted, INDEXER_START_SLOT=0) and mainnet-beta alone; it gets the rest of
 * the environment (e.g. INDEXER_POLL_MS=100, LOG_LEVEL). Two pools (the catalog's busy SOL/USDC v1
 * and v2, the latter with a per-pool fee split), 120 s of history, which the API must count in
 * full before a case starts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { startBenchEmbeddedPostgres } from '@hadron/platform/testing/bench-postgres';
import { freePort } from '@hadron/platform/testing/free-port';
import { npmScriptNodeFlags } from '@hadron/platform/testing/node-command';
import { createTestDatabase } from '@hadron/platform/testing/test-database';
import { startSimulator, type RunningSimulator } from '../../simulator/src/index';

const CLUSTER = 'mainnet-beta';
const ROOT = resolve(__dirname, '../../..');
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const SWAPS = env('BENCH_LIVE_SWAPS', 1000);
const MIN_SECONDS = env('BENCH_LIVE_MIN_SECONDS', 10);
const POLL_MS = env('BENCH_LIVE_POLL_MS', 20);
const TIMEOUT_MS = env('BENCH_LIVE_TIMEOUT_S', 60) * 1000;
const RATES = (process.env.BENCH_LIVE_RATES ?? '50,500').split(',').map(Number);
const MODES = (process.env.BENCH_LIVE_MODES ?? 'default,websocket').split(',') as Array<'default' | 'websocket'>;
/** Two pools: the catalog's two busy SOL/USDC pools (v1 and v2), each taking half the swaps. */
const POOLS = 2;
const HISTORY_SECONDS = 120;
/** The simulator's own live tick: slots are produced when due, checked every half slot. */
const SLOT_MS = 400;
const MAX_CATCH_UP_SLOTS_PER_TICK = 25;

interface Swap {
  pool: string;
  slot: number;
  confirmedAt?: number;
  visibleAt?: number;
  rpcVisibleAt?: number;
}

interface CaseResult {
  swaps: Swap[];
  seconds: number;
}

async function main(): Promise<void> {
  const embedded = process.env.DATABASE_URL ? undefined : await startBenchEmbeddedPostgres(ROOT);
  const admin = process.env.DATABASE_URL ?? embedded!.url;
  const report = new BenchReport('live');
  report.set('swaps_per_case_min', SWAPS);
  report.set('poll_ms', POLL_MS);
  console.log(
    `live latency: swap confirmed on the simulator → counted by GET /pools/{address}/fees (${POOLS} pools, observer pause ${POLL_MS} ms, ≥ ${SWAPS} swaps and ≥ ${MIN_SECONDS} s per case)`,
  );
  try {
    for (const rate of RATES) {
      for (const mode of MODES) {
        const result = await runCase(admin, rate, mode);
        const first = mode === MODES[0];
        if (first) {
          // Same swaps, seen on the chain's own RPC by the same poller: the floor of this observation.
          const lat = result.swaps.filter((s) => s.rpcVisibleAt !== undefined).map((s) => s.rpcVisibleAt! - s.confirmedAt!);
          report.add({ case: `${rate}/s simulator RPC (baseline)`, events_per_s: result.swaps.length / result.seconds, ...stats(lat), baseline: true });
        }
        const seen = result.swaps.filter((s) => s.visibleAt !== undefined);
        const lat = seen.map((s) => s.visibleAt! - s.confirmedAt!);
        report.add({
          case: `${rate}/s ${mode}`,
          events_per_s: result.swaps.length / result.seconds,
          ...stats(lat),
          baseline: false,
          swaps: result.swaps.length,
          lost: result.swaps.length - seen.length,
        });
      }
    }
  } finally {
    await embedded?.stop();
  }
  for (const c of report.cases) console.log(`  ${c.case}: max ${c.max_ms} ms${c.lost ? `, ${c.lost} never visible` : ''}`);
  report.write();
}

function stats(lat: number[]): { p50_ms: number | null; p99_ms: number | null; max_ms: number | null } {
  if (lat.length === 0) return { p50_ms: null, p99_ms: null, max_ms: null };
  const sorted = [...lat].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { p50_ms: at(0.5), p99_ms: at(0.99), max_ms: round(sorted[sorted.length - 1]) };
}
const round = (n: number) => Math.round(n * 10) / 10;

async function runCase(adminUrl: string, rate: number, mode: 'default' | 'websocket'): Promise<CaseResult> {
  const db = await createTestDatabase([], adminUrl);
  const sim = await startSimulator({
    port: 0,
    seed: `bench-live-${rate}-${mode}`,
    pools: POOLS,
    historySeconds: HISTORY_SECONDS,
    live: false,
    slotMs: SLOT_MS,
  });
  const market = sim.market(CLUSTER);
  // What live mode sets: confirmed one slot, finalized 32 after production (the history stays final).
  market.ledger.setCommitmentLags({ confirmed: 1, finalized: 32 });
  // No new swaps until the API has caught up with the history: the count it shows then is the mark.
  market.setRates({ swapsPerSecond: 0 });
  const chain = new ChainDriver(sim);
  let app: AppProcess | undefined;
  try {
    app = await startApp(db.url, sim, mode);
    const pools = sim.groundTruth(CLUSTER).pools.map((p) => p.config);
    const api = `http://127.0.0.1:${app.port}`;
    await waitFor(`the API up on ${api}`, 120_000, async () => (await fetch(`${api}/health`).catch(() => null))?.ok === true, app);
    // Caught up = the API counts every swap of the history, pool by pool (checks the observer against the chain, too).
    const history = new Map(pools.map((p) => [p, sim.groundTruth(CLUSTER).swaps.filter((s) => s.pool_config === p).length]));
    const base = new Map<string, number>();
    await waitFor(
      'the API to count every swap of the history',
      180_000,
      async () => {
        for (const p of pools) base.set(p, (await swapCount(api, p)) ?? -1);
        return pools.every((p) => base.get(p) === history.get(p));
      },
      app,
      () => JSON.stringify({ api: Object.fromEntries(base), chain: Object.fromEntries(history) }),
    );

    // The measured stream: busy pools take `rate / 2` each.
    chain.startMeasuring();
    market.setRates({ swapsPerSecond: rate / POOLS });
    const started = performance.now();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const observers = new Observers(api, pools, base, chain, sim.urls[CLUSTER]);
    let failed: Error | undefined;
    observers.finished.catch((e: Error) => (failed = e));
    const check = () => {
      if (failed) throw failed;
      if (app?.exited) throw new Error(`the app exited (${app.exited}):\n${app.tail()}`);
      if (interrupted) throw new Error('interrupted');
    };
    while (chain.swaps.length < SWAPS || performance.now() - started < MIN_SECONDS * 1000) {
      await sleep(100);
      check();
    }
    market.setRates({ swapsPerSecond: 0 });
    const seconds = (performance.now() - started) / 1000;
    // Every measured swap confirmed (the chain keeps producing), then visible or lost.
    const deadline = performance.now() + TIMEOUT_MS;
    while (performance.now() < deadline && chain.swaps.some((s) => s.visibleAt === undefined || s.rpcVisibleAt === undefined)) {
      await sleep(50);
      check();
    }
    await observers.stop();
    loop.disable();
    const req = stats(observers.requestMs);
    console.log(
      `  (${rate}/s ${mode}: observer requests p50 ${req.p50_ms} ms, p99 ${req.p99_ms} ms; bench process event loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms)`,
    );
    return { swaps: chain.swaps, seconds };
  } finally {
    chain.stop();
    await app?.stop();
    await sim.stop();
    if (process.env.BENCH_LIVE_KEEP_DB === '1') console.log(`  (kept the database ${db.url})`);
    else await db.drop();
  }
}

/** Produces the cluster's slots when due (as the simulator's live mode does) and stamps each swap's confirmation. */
class ChainDriver {
  readonly swaps: Swap[] = [];
  private measuring = false;
  private seen: number;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly sim: RunningSimulator) {
    this.seen = sim.groundTruth(CLUSTER).swaps.length;
    this.timer = setInterval(() => this.tick(), SLOT_MS / 2);
  }

  startMeasuring(): void {
    this.seen = this.sim.groundTruth(CLUSTER).swaps.length;
    this.measuring = true;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const ledger = this.sim.market(CLUSTER).ledger;
    const due = ledger.clock.firstSlot + Math.floor((Date.now() - ledger.clock.firstSlotTimeMs) / ledger.clock.slotMs);
    for (let n = 0; ledger.head < due && n < MAX_CATCH_UP_SLOTS_PER_TICK; n++) {
      this.sim.advance(CLUSTER, 1);
      const now = performance.timeOrigin + performance.now(); // absolute: the observer's thread stamps the same way
      if (this.measuring) {
        const all = this.sim.groundTruth(CLUSTER).swaps;
        for (; this.seen < all.length; this.seen++) this.swaps.push({ pool: all[this.seen].pool_config, slot: all[this.seen].slot });
      }
      const confirmed = ledger.visibleSlot('confirmed');
      for (let i = this.swaps.length - 1; i >= 0 && this.swaps[i].confirmedAt === undefined; i--) {
        if (this.swaps[i].slot <= confirmed) this.swaps[i].confirmedAt = now;
      }
    }
  }
}

/**
 * The observer: one HTTP poller per pool on the API and one on the simulator's RPC (the baseline),
 * in a worker thread of their own, so the simulator's slot production in this thread never delays
 * when a response is seen. Each poll's result is stamped there (absolute ms) and matched here.
 */
const OBSERVER = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { api, pools, rpcUrl, cluster, pollMs } = workerData;
let stopped = false;
parentPort.on('message', () => (stopped = true));
const now = () => performance.timeOrigin + performance.now();
const pause = () => new Promise((r) => setTimeout(r, pollMs));
async function watchPool(pool) {
  while (!stopped) {
    const sent = now();
    const res = await fetch(api + '/pools/' + pool + '/fees?interval=all&cluster=' + cluster);
    const text = await res.text();
    const at = now();
    if (!res.ok) throw new Error('GET fees of ' + pool + ': ' + res.status + ' ' + text);
    const body = JSON.parse(text);
    if (body.truncated) throw new Error('fees of ' + pool + ' truncated: the swap count is not exact');
    parentPort.postMessage({ kind: 'pool', pool, count: body.totals.swap_count, at, ms: at - sent });
    await pause();
  }
}
async function watchRpc() {
  while (!stopped) {
    const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'confirmed' }] }) });
    const slot = (await res.json()).result;
    parentPort.postMessage({ kind: 'rpc', slot, at: now() });
    await pause();
  }
}
Promise.all([...pools.map(watchPool), watchRpc()]).then(
  () => parentPort.postMessage({ kind: 'done' }),
  (e) => parentPort.postMessage({ kind: 'error', message: String(e && e.message || e) }),
);
`;

type Observation =
  | { kind: 'pool'; pool: string; count: number; at: number; ms: number }
  | { kind: 'rpc'; slot: number; at: number }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

class Observers {
  /** Round trips of the API requests (ms): what the observer's own polling costs. */
  readonly requestMs: number[] = [];
  private readonly worker: Worker;
  private readonly visible = new Map<string, number>();
  readonly finished: Promise<void>;

  constructor(
    api: string,
    pools: string[],
    private readonly base: Map<string, number>,
    private readonly chain: ChainDriver,
    rpcUrl: string,
  ) {
    this.worker = new Worker(OBSERVER, { eval: true, workerData: { api, pools, rpcUrl, cluster: CLUSTER, pollMs: POLL_MS } });
    this.finished = new Promise((resolveDone, reject) => {
      this.worker.on('error', reject);
      this.worker.on('message', (m: Observation) => {
        if (m.kind === 'pool') this.onPool(m.pool, m.count - this.base.get(m.pool)!, m.at, m.ms);
        else if (m.kind === 'rpc') this.onRpc(m.slot, m.at);
        else if (m.kind === 'error') reject(new Error(`observer: ${m.message}`));
        else resolveDone();
      });
    });
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await this.finished.finally(() => this.worker.terminate());
  }

  /** The first `count` new swaps of `pool` (chain order) are visible as of `at`. */
  private onPool(pool: string, count: number, at: number, ms: number): void {
    this.requestMs.push(ms);
    if (count <= (this.visible.get(pool) ?? 0)) return;
    let k = 0;
    for (const s of this.chain.swaps) {
      if (s.pool !== pool) continue;
      if (++k > count) break;
      s.visibleAt ??= at;
    }
    this.visible.set(pool, count);
  }

  private onRpc(slot: number, at: number): void {
    for (const s of this.chain.swaps) if (s.slot <= slot && s.confirmedAt !== undefined) s.rpcVisibleAt ??= at;
  }
}

/** The pool's swap count in the API; null while it does not know the pool (404: not indexed yet). */
async function swapCount(api: string, pool: string): Promise<number | null> {
  const res = await fetch(`${api}/pools/${pool}/fees?interval=all&cluster=${CLUSTER}`);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`GET fees of ${pool}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { totals: { swap_count: number }; truncated: boolean };
  if (body.truncated) throw new Error(`fees of ${pool} truncated: the swap count is not exact`);
  return body.totals.swap_count;
}

async function waitFor(what: string, ms: number, ok: () => Promise<boolean>, app: AppProcess, detail?: () => string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await ok())) {
    if (interrupted) throw new Error('interrupted');
    if (app.exited) throw new Error(`the app exited (${app.exited}) waiting for ${what}:\n${app.tail()}`);
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${detail ? `: ${detail()}` : ''}\n${app.tail()}`);
    await sleep(250);
  }
}

interface AppProcess {
  port: number;
  exited: string | undefined;
  tail(): string;
  stop(): Promise<void>;
}

/** `npm start`'s process (indexer + projector + API) against the simulator, in a process group of its own. */
async function startApp(databaseUrl: string, sim: RunningSimulator, mode: 'default' | 'websocket'): Promise<AppProcess> {
  const port = await freePort();
  // With `npm start`'s Node flags (README "Node flag").
  const entry = [
    ...npmScriptNodeFlags(ROOT, 'start'),
    ...(process.env.BENCH_LIVE_DIST === '1'
      ? ['-r', './scripts/register-aliases.js', 'dist/apps/main/src/main.js']
      : ['-r', './scripts/register-ts.js', 'apps/main/src/main.ts']),
  ];
  const child: ChildProcess = spawn(process.execPath, entry, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      LOG_FORMAT: 'json',
      INDEXER_CLUSTERS: CLUSTER,
      RPC_URL_MAINNET_BETA: sim.urls[CLUSTER],
      ...(mode === 'websocket' ? { RPC_WS_URL_MAINNET_BETA: sim.wsUrls[CLUSTER] } : {}),
      // As the demo: the whole simulated history, and a local RPC needs no rate limit.
      INDEXER_START_SLOT: '0',
      RPC_RPS: process.env.RPC_RPS ?? '100000',
      API_SHUTDOWN_GRACE_SECONDS: '0',
      API_EXPLORER: 'false',
    },
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 20));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  if (process.env.BENCH_LIVE_APP_LOG) {
    const file = createWriteStream(`${process.env.BENCH_LIVE_APP_LOG}.${mode}-${port}.log`);
    child.stdout!.pipe(file);
    child.stderr!.pipe(file);
  }
  const app: AppProcess = {
    port,
    exited: undefined,
    tail: () => lines.map((l) => l.slice(0, 400)).join('\n'),
    stop: async () => {
      if (app.exited) return;
      const exit = new Promise<void>((r) => child.once('exit', () => r()));
      signalGroup(child, 'SIGTERM');
      const killed = setTimeout(() => signalGroup(child, 'SIGKILL'), 45_000);
      await exit;
      clearTimeout(killed);
    },
  };
  child.once('exit', (code, signal) => (app.exited = signal ?? `code ${code}`));
  // The bench stopped by Ctrl-C or an error still stops the app's group.
  const onExit = () => signalGroup(child, 'SIGKILL');
  process.once('exit', onExit);
  child.once('exit', () => process.off('exit', onExit));
  return app;
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Ctrl-C: the case in progress stops and cleans up (app, simulator, database); a second one exits at once. */
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
