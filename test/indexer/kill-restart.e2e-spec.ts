import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { HadronEvent } from '@hadron/contracts';
import { createLogger } from '@hadron/platform';
import type { TestDatabase } from '@hadron/platform/testing/test-database';
import { startIndexer } from '../../apps/indexer/src/index';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import { caughtUp, compareWithGroundTruth, indexerDatabase, readEventLog, simIndexerConfig, simIndexerEnv, storageOf, waitFor } from './indexer-harness';

/**
 * KILL -9. The indexer runs as its own process (apps/indexer/src/main.ts) and dies by SIGKILL in
 * the middle of its backfill, then restarts, several times. Each crash is placed, not timed: the
 * process kills itself (crash-point.preload.ts) right before appending a chunk's events (its cycle
 * already saved) or right after appending them, before the cursor commit. A last crash is an
 * external SIGKILL once the cursor is seen to move. The final event log must be the very same set
 * of events (ids AND payloads) as a run that was never interrupted, with no duplicate: the
 * Postgres log is idempotent by id (on Kafka a re-append after a crash can duplicate a record;
 * projections drop it by id). Block positions use the default (multi).
 */

const ROOT = resolve(__dirname, '../..');
const HISTORY_END = 1_750_000_000_000;
const CLUSTERS = ['mainnet-beta', 'devnet'] as const;
let sim: RunningSimulator;
let clean: TestDatabase;
let crashed: TestDatabase;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'indexer-kill', pools: 6, historySeconds: 600, historyEndTimeMs: HISTORY_END, live: false });
  clean = await indexerDatabase();
  crashed = await indexerDatabase();
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await sim?.stop();
  await clean?.drop();
  await crashed?.drop();
});

// Many small chunks: every crash point below falls well inside the backfill.
const SETTINGS = { INDEXER_CHUNK_TXS: '150', INDEXER_REFRESH_SECONDS: '3600', INDEXER_TX_POSITIONS: 'multi' };

/** Starts main.ts as a child process; `crash` arms crash-point.preload.ts. Resolves with the child and a promise of its log. */
function startChild(db: TestDatabase, crash?: string): { child: ChildProcess; output: () => string } {
  // KAFKA_BROKERS cleared: the child appends to the Postgres log this test reads, even where CI configures Kafka.
  const env = {
    ...process.env,
    ...simIndexerEnv(sim, SETTINGS),
    DATABASE_URL: db.url,
    KAFKA_BROKERS: '',
    OPS_PORT: '0',
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    INDEXER_TEST_CRASH: crash ?? '',
  };
  const preload = crash ? ['-r', './test/indexer/crash-point.preload.ts'] : [];
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', ...preload, 'apps/indexer/src/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    if (buffered.length > 200_000) buffered = buffered.slice(-100_000);
  });
  return { child, output: () => buffered };
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.exitCode !== null || child.signalCode !== null
      ? r({ code: child.exitCode, signal: child.signalCode })
      : child.once('exit', (code, signal) => r({ code, signal })),
  );

async function cursors(db: TestDatabase): Promise<Record<string, number | null>> {
  const { rows } = await db.pool.query<{ cluster: string; through_slot: string | null }>('SELECT cluster, through_slot FROM indexer.cluster_cursor');
  return Object.fromEntries(rows.map((r) => [r.cluster, r.through_slot === null ? null : Number(r.through_slot)]));
}

const byId = (events: readonly HadronEvent[]) => new Map(events.map((e) => [e.id, e]));

it('SIGKILLed at placed points of the backfill (before an append, between append and commit, mid-chunk) and restarted, it ends with exactly the events of an uninterrupted run', async () => {
  // Reference: one uninterrupted run, listing 100 signatures a page (the crashed runs: 1000). The
  // backfill is held as page boundaries plus one slot window at a time — bounded memory — and the
  // events must not depend on how the range was windowed or chunked.
  const reference = await startIndexer(storageOf(clean), simIndexerConfig(sim, { ...SETTINGS, RPC_SIGNATURES_PAGE: '100' }), createLogger('reference', 'warn'));
  for (const cluster of CLUSTERS) await waitFor(`reference ${cluster}`, () => caughtUp(clean, sim, cluster), 120_000, 200);
  const windows = (await reference.metrics.registry.getSingleMetric('hadron_indexer_listing_window_signatures')!.get()).values as {
    metricName?: string;
    labels: Record<string, string | number>;
    value: number;
  }[];
  const bucket = (le: number | string) =>
    windows.filter((v) => v.metricName === 'hadron_indexer_listing_window_signatures_bucket' && v.labels.le === le).reduce((a, v) => a + v.value, 0);
  const listed = windows.filter((v) => v.metricName === 'hadron_indexer_listing_window_signatures_sum').reduce((a, v) => a + v.value, 0);
  expect(bucket('+Inf')).toBeGreaterThan(10); // many windows
  expect(bucket(250)).toBe(bucket('+Inf')); // none held more than 250 signatures (two pages per program, and a slot's spill)
  expect(listed).toBeGreaterThan(20 * 250); // out of thousands
  await reference.stop();

  // Crashing runs, each at a placed point of its Nth chunk (appends and commits count both clusters).
  const kills: { at: string; cursors: Record<string, number | null>; events: number }[] = [];
  for (const at of ['before-commit:3', 'before-append:5', 'before-commit:6', 'before-append:4', 'before-commit:9']) {
    const { child, output } = startChild(crashed, at);
    expect(await exited(child)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(output()).toContain('"msg":"test crash point"'); // died where placed, not of something else
    kills.push({ at, cursors: await cursors(crashed), events: Number((await crashed.pool.query('SELECT count(*) AS n FROM event_log')).rows[0].n) });
  }
  // And one plain external kill -9, once the cursor is seen to move past where the last crash left it.
  const { child } = startChild(crashed);
  const from = await cursors(crashed);
  await waitFor(
    'the cursor to move',
    async () => {
      const now = await cursors(crashed);
      return CLUSTERS.some((c) => (now[c] ?? -1) > (from[c] ?? -1));
    },
    60_000,
    20,
  );
  child.kill('SIGKILL');
  expect((await exited(child)).signal).toBe('SIGKILL');
  kills.push({ at: 'external', cursors: await cursors(crashed), events: Number((await crashed.pool.query('SELECT count(*) AS n FROM event_log')).rows[0].n) });
  // eslint-disable-next-line no-console
  console.log('kills', JSON.stringify(kills));
  // Every crash landed inside the backfill, and the crashed runs did make progress.
  for (const k of kills) expect(CLUSTERS.some((c) => k.cursors[c] === null || k.cursors[c]! < sim.groundTruth(c).head_slot)).toBe(true);
  expect(kills[kills.length - 1].events).toBeGreaterThan(0);

  // Final run to completion, then a clean SIGTERM.
  const { child: last } = startChild(crashed);
  for (const cluster of CLUSTERS) await waitFor(`restarted ${cluster}`, () => caughtUp(crashed, sim, cluster), 120_000, 200);
  last.kill('SIGTERM');
  expect(await exited(last)).toEqual({ code: 0, signal: null });

  for (const cluster of CLUSTERS) {
    const want = await readEventLog(clean, cluster);
    const got = await readEventLog(crashed, cluster);
    expect(got.length).toBe(want.length); // no duplicate, nothing missing
    const wantById = byId(want);
    const gotById = byId(got);
    expect(gotById.size).toBe(got.length);
    for (const [id, e] of wantById) expect(gotById.get(id)).toEqual(e);
    expect(compareWithGroundTruth(got, sim.groundTruth(cluster)).mismatches).toEqual([]);
  }
}, 420_000);
