import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { HadronEvent } from '@hadron/contracts';
import { createLogger } from '@hadron/platform';
import type { TestDatabase } from '@hadron/platform/testing/test-database';
import { startIndexer } from '../../apps/indexer/src/index';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import { caughtUp, compareWithGroundTruth, indexerDatabase, readEventLog, simIndexerConfig, simIndexerEnv, storageOf, waitFor } from './indexer-harness';

/**
 * KILL -9. The indexer runs as its own process (apps/indexer/src/main.ts) and is SIGKILLed at
 * random points of its backfill, then restarted, several times. The final event log must be the
 * very same set of events (ids AND payloads) as a run that was never interrupted, with no
 * duplicate: the Postgres log is idempotent by id (on Kafka a re-append after a crash can
 * duplicate a record; projections drop it by id).
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

// Slow enough that the kills land inside the backfill: ~2000 RPC calls/s per cluster.
const SETTINGS = { RPC_RPS: '2000', INDEXER_CHUNK_TXS: '150', INDEXER_REFRESH_SECONDS: '3600' };

/** Starts main.ts as a child process; resolves once it logs that it is indexing. */
async function startChild(db: TestDatabase): Promise<ChildProcess> {
  // KAFKA_BROKERS cleared: the child appends to the Postgres log this test reads, even where CI configures Kafka.
  const env = { ...process.env, ...simIndexerEnv(sim, SETTINGS), DATABASE_URL: db.url, KAFKA_BROKERS: '', OPS_PORT: '0', OPS_HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'apps/indexer/src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  await new Promise<void>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('"msg":"indexer running"')) resolve();
      if (buffered.length > 100_000) buffered = buffered.slice(-1000);
    });
    child.once('exit', (code) => reject(new Error(`indexer exited with ${code} before running`)));
  });
  return child;
}

const exited = (child: ChildProcess) => new Promise<number | null>((r) => (child.exitCode !== null || child.signalCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));

async function cursors(db: TestDatabase): Promise<Record<string, number | null>> {
  const { rows } = await db.pool.query<{ cluster: string; through_slot: string | null }>('SELECT cluster, through_slot FROM indexer.cluster_cursor');
  return Object.fromEntries(rows.map((r) => [r.cluster, r.through_slot === null ? null : Number(r.through_slot)]));
}

const byId = (events: readonly HadronEvent[]) => new Map(events.map((e) => [e.id, e]));

it('SIGKILLed at random points of the backfill and restarted, it ends with exactly the events of an uninterrupted run', async () => {
  // Reference: one uninterrupted run.
  const reference = await startIndexer(storageOf(clean), simIndexerConfig(sim, SETTINGS), createLogger('reference', 'warn'));
  for (const cluster of CLUSTERS) await waitFor(`reference ${cluster}`, () => caughtUp(clean, sim, cluster), 120_000, 200);
  await reference.stop();

  // Crashing runs: kill -9 a random 0.2–2 s after the indexer has started.
  const kills: { afterMs: number; cursors: Record<string, number | null>; events: number }[] = [];
  for (let round = 0; round < 5; round++) {
    const child = await startChild(crashed);
    const afterMs = 200 + Math.floor(Math.random() * 1800);
    await new Promise((r) => setTimeout(r, afterMs));
    const done = (await Promise.all(CLUSTERS.map((c) => caughtUp(crashed, sim, c)))).every(Boolean);
    child.kill('SIGKILL');
    await exited(child);
    kills.push({ afterMs, cursors: await cursors(crashed), events: Number((await crashed.pool.query('SELECT count(*) AS n FROM event_log')).rows[0].n) });
    if (done) break;
  }
  // eslint-disable-next-line no-console
  console.log('kills', JSON.stringify(kills));
  const mid = kills.filter((k) => CLUSTERS.some((c) => k.cursors[c] === null || k.cursors[c]! < sim.groundTruth(c).head_slot));
  expect(mid.length).toBeGreaterThanOrEqual(2); // at least two kills landed inside the backfill

  // Final run to completion, then a clean SIGTERM.
  const last = await startChild(crashed);
  for (const cluster of CLUSTERS) await waitFor(`restarted ${cluster}`, () => caughtUp(crashed, sim, cluster), 120_000, 200);
  last.kill('SIGTERM');
  expect(await exited(last)).toBe(0);

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
