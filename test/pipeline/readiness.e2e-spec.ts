import type { ClusterFreshness } from '../../apps/api/src/health/readiness';
import { simIndexerEnv, waitFor } from '../indexer/indexer-harness';
import { getJson, healthy, simulatorAndDatabase, startMain, type Started } from './support/app-process';

/**
 * READINESS TELLS THE TRUTH ABOUT FRESHNESS, probed from outside like a load balancer: the real
 * one-process app backfilling a simulated cluster (rate-limited, so it takes seconds). While it
 * backfills, /health/ready is 503 and its body shows, per cluster, how far behind the data is;
 * once caught up it is 200 and says per cluster the indexed slot and its block time. (Before,
 * it answered 200 with 0 pools while the indexer was still backfilling.) The data responses'
 * freshness headers (X-Indexed-Slot…) move with the indexer meanwhile.
 */

const HISTORY_END_MS = 1_760_000_000_000;

interface ReadyBody {
  status: string;
  detail: { clusters: ClusterFreshness[]; reasons: string[]; pool_list: { pools: number } };
}

const fx = simulatorAndDatabase({ port: 0, seed: 'readiness-e2e', pools: 4, historySeconds: 600, historyEndTimeMs: HISTORY_END_MS, live: false });

it('is 503 with the lag per cluster while backfilling, then 200 with the indexed slot and its block time per cluster', async () => {
  const { sim, db, apiPort, children } = fx;
  const app: Started = startMain(
    {
      // A slow RPC: the backfill takes seconds, so readiness can be watched while it runs.
      ...simIndexerEnv(sim, { RPC_RPS: '200', RPC_TX_BATCH: '10' }),
      DATABASE_URL: db.url,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      POOL_LIST_REFRESH_MS: '200',
    },
    children,
  );
  await waitFor('GET /health', () => healthy(apiPort), 90_000, 100);

  const seen: { status: number; body: ReadyBody }[] = [];
  // What a client of the data sees meanwhile: the freshness headers of GET /pools (mainnet-beta).
  const slotsSeen: number[] = [];
  await waitFor(
    'GET /health/ready = 200',
    async () => {
      const r = await getJson<ReadyBody>(apiPort, '/health/ready');
      seen.push(r);
      const pools = await fetch(`http://127.0.0.1:${apiPort}/pools`);
      const slot = pools.headers.get('x-indexed-slot');
      if (pools.status === 200 && slot !== null) slotsSeen.push(Number(slot));
      return r.status === 200;
    },
    180_000,
    100,
  );

  // While behind: 503, and the body says how far behind, per cluster.
  const behind = seen.filter((r) => r.status === 503 && r.body.detail.clusters.some((c) => !c.backfill_done || (c.lag_slots ?? 0) > 0));
  expect(behind.length).toBeGreaterThan(0);
  const sample = behind[0].body;
  expect(sample.status).toBe('not ready');
  expect(sample.detail.reasons.some((r) => /^indexer:(mainnet-beta|devnet) not ready: backfilling/.test(r))).toBe(true);
  for (const c of sample.detail.clusters.filter((x) => !x.backfill_done)) expect(c.ready).toBe(false);
  // Never "ready" before both clusters are caught up.
  for (const r of seen.filter((x) => x.status === 200)) expect(r.body.detail.clusters.every((c) => c.ready && c.backfill_done)).toBe(true);

  // Caught up: per cluster the indexed slot (the head: the cluster is not live) and its block time.
  const ready = seen[seen.length - 1].body;
  expect(ready.detail.reasons).toEqual([]);
  expect(ready.detail.clusters.map((c) => c.cluster).sort()).toEqual(['devnet', 'mainnet-beta']);
  for (const c of ready.detail.clusters) {
    const gt = sim.groundTruth(c.cluster as 'devnet' | 'mainnet-beta');
    const lastSwap = gt.swaps.reduce((a, s) => Math.max(a, s.block_time), 0);
    expect({ indexed_slot: c.indexed_slot, head_slot: c.head_slot, lag_slots: c.lag_slots, lag_seconds: c.lag_seconds }).toEqual({
      indexed_slot: gt.head_slot,
      head_slot: gt.head_slot,
      lag_slots: 0,
      lag_seconds: 0,
    });
    // The block time of the newest indexed transaction: at or after the last swap, within the history.
    expect(c.indexed_time).toBeGreaterThanOrEqual(lastSwap);
    expect(c.indexed_time).toBeLessThanOrEqual(HISTORY_END_MS / 1000);
  }
  // The freshness headers moved with the indexer (never backwards) and end where readiness says.
  const mainnet = ready.detail.clusters.find((c) => c.cluster === 'mainnet-beta')!;
  expect(new Set(slotsSeen).size).toBeGreaterThan(1);
  expect(slotsSeen).toEqual([...slotsSeen].sort((x, y) => x - y));
  // (The headers come from the API's in-memory view, refreshed every POOL_LIST_REFRESH_MS.)
  let last = await fetch(`http://127.0.0.1:${apiPort}/pools`);
  await waitFor(
    'X-Indexed-Slot to reach the indexed slot',
    async () => (last = await fetch(`http://127.0.0.1:${apiPort}/pools`)).headers.get('x-indexed-slot') === String(mainnet.indexed_slot),
    5_000,
    50,
  );
  expect({ slot: last.headers.get('x-indexed-slot'), time: last.headers.get('x-indexed-time'), lag: last.headers.get('x-data-lag-seconds') }).toEqual({
    slot: String(mainnet.indexed_slot),
    time: String(mainnet.indexed_time),
    lag: '0',
  });
  expect(((await last.json()) as { as_of: unknown }).as_of).toEqual({ slot: mainnet.indexed_slot, time: mainnet.indexed_time, lag_seconds: 0 });
  expect(ready.detail.pool_list.pools).toBe(sim.groundTruth('mainnet-beta').pools.length + sim.groundTruth('devnet').pools.length);

  app.child.kill('SIGTERM');
  expect(await app.exited).toBe(0);
}, 300_000);
