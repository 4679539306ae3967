import { createLogger } from '@hadron/platform';
import { startIndexer } from '../../apps/indexer/src/index';
import {
  caughtUp,
  compareWithGroundTruth,
  finalStateMismatches,
  readEventLog,
  simIndexerConfig,
  storageOf,
  useSimulatedCluster,
  waitFor,
} from './indexer-harness';

/**
 * BACKFILL + LIVE TAIL against the simulated cluster, both clusters at once: the event log ends up
 * holding exactly the simulator's ground truth — every swap (same ids, amounts to the atom, vault
 * balances after, midprice in effect), every oracle update, every vault balance change, every pool
 * with its tokens — including a pool created while the indexer tails the chain.
 */

const fx = useSimulatedCluster({ seed: 'indexer-e2e', pools: 6, historySeconds: 300, newPoolAfterSeconds: 20 });

it('backfills the history, tails new slots, and the log equals the ground truth on both clusters', async () => {
  const log = createLogger('indexer-e2e', process.env.TEST_LOG_LEVEL ?? 'warn');
  fx.indexer = await startIndexer(storageOf(fx.db), simIndexerConfig(fx.sim, { INDEXER_CHUNK_TXS: '400', INDEXER_REFRESH_SECONDS: '3600' }), log);
  for (const cluster of ['mainnet-beta', 'devnet'] as const) await waitFor(`${cluster} backfill`, () => caughtUp(fx.db, fx.sim, cluster), 90_000, 200);
  expect((await fx.indexer.ready()).ready).toBe(true);

  // Live: the chain grows 10 slots at a time while the indexer polls; a new pool appears 20 s in.
  for (let i = 0; i < 15; i++) {
    fx.sim.advance('all', 10);
    await new Promise((r) => setTimeout(r, 150));
  }
  for (const cluster of ['mainnet-beta', 'devnet'] as const) await waitFor(`${cluster} live tail`, () => caughtUp(fx.db, fx.sim, cluster), 30_000, 200);

  for (const cluster of ['mainnet-beta', 'devnet'] as const) {
    const gt = fx.sim.groundTruth(cluster);
    const events = await readEventLog(fx.db, cluster);
    const cmp = compareWithGroundTruth(events, gt);
    // eslint-disable-next-line no-console
    console.log(cluster, JSON.stringify({ ...cmp, mismatches: cmp.mismatches.length }));
    expect(cmp.mismatches).toEqual([]);
    expect(cmp.counts.SwapExecuted).toBe(gt.swaps.length);
    expect(cmp.counts.MidpriceUpdated).toBe(gt.oracle_updates.length);
    expect(cmp.counts.VaultBalancesChanged).toBe(gt.vault_balance_changes.length);
    expect(cmp.counts.PoolDiscovered).toBe(gt.pools.length);
    expect(gt.pools.length).toBe(7); // six at genesis/history + one created during the live tail
    expect(cmp.txIndexChecked).toBe(gt.swaps.length);
    expect(finalStateMismatches(events, gt)).toEqual([]);
  }
}, 240_000);

/** Test-only reach into the simulator: schedule a pool-state change or a fee-split rewrite at a future slot (live mode has none of its own). */
function scheduleAdmin(cluster: 'mainnet-beta' | 'devnet', config: string, inSlots: number, action: 'pause' | 'resume' | 'split', generation = 0): void {
  const market = fx.sim.market(cluster);
  market.scheduleAdmin(config, market.ledger.head + inSlots, action === 'split' ? { splitGeneration: generation } : { state: action === 'pause' ? 2 : 1 });
}

it('places live account changes (pause, resume, fee split) at the transactions that made them', async () => {
  const cluster = 'devnet';
  const before = fx.sim.groundTruth(cluster);
  const splitPool = before.pools.find(
    (p) => p.has_pool_fee === 1 && before.fee_split_changes.some((c) => c.pool_config === p.config && c.recipients.length > 0),
  )!;
  const pausedPool = before.pools.find((p) => p.has_pool_fee === 0 && p.state_history[p.state_history.length - 1].state === 1)!;
  scheduleAdmin(cluster, pausedPool.config, 4, 'pause');
  scheduleAdmin(cluster, splitPool.config, 9, 'split', 7);
  scheduleAdmin(cluster, pausedPool.config, 25, 'resume');
  // Each change is indexed before the next one exists: a pause and its resume in one batch would
  // net out to no change at all, so each must land in its own poll — by construction, not by timing.
  for (const [slots, what] of [
    [6, 'the pause'],
    [6, 'the split rewrite'],
    [15, 'the resume'],
    [13, 'the slots after'],
  ] as const) {
    fx.sim.advance(cluster, slots);
    await waitFor(`${what} indexed`, () => caughtUp(fx.db, fx.sim, cluster), 30_000, 100);
  }

  const gt = fx.sim.groundTruth(cluster);
  const events = await readEventLog(fx.db, cluster);
  const cmp = compareWithGroundTruth(events, gt);
  expect(cmp.mismatches).toEqual([]);
  expect(finalStateMismatches(events, gt)).toEqual([]);

  const liveStates = gt.pools.find((p) => p.config === pausedPool.config)!.state_history.filter((h) => h.slot > before.head_slot);
  expect(liveStates.map((h) => h.state)).toEqual([2, 1]);
  const changes = events.filter((e) => e.type === 'PoolConfigChanged' && e.pool === pausedPool.config);
  expect(changes.map((e) => [e.signature, e.slot, e.type === 'PoolConfigChanged' && e.data.poolStateRaw])).toEqual(
    liveStates.map((h) => [h.signature, h.slot, h.state]),
  );

  const liveSplit = gt.fee_split_changes.filter((c) => c.pool_config === splitPool.config && c.slot > before.head_slot);
  expect(liveSplit).toHaveLength(1);
  const splitEvents = events.filter((e) => e.type === 'FeeSplitChanged' && e.pool === splitPool.config && e.slot > before.head_slot);
  expect(splitEvents.map((e) => [e.signature, e.type === 'FeeSplitChanged' && e.data.recipients])).toEqual([[liveSplit[0].signature, liveSplit[0].recipients]]);
  // Every swap indexed live carries the split in effect, exactly as the simulator applied it.
  const liveSwaps = gt.swaps.filter((s) => s.slot > before.history_end_slot && s.pool_config === splitPool.config);
  expect(liveSwaps.length).toBeGreaterThan(0);
  const byId = new Map(events.map((e) => [e.id, e]));
  for (const s of liveSwaps) expect((byId.get(s.event_id) as any).data.feeSplit).toEqual(s.fee_split);
}, 120_000);

it('a second indexer on the same database stands by, and takes over when the first stops', async () => {
  const standby = await startIndexer(storageOf(fx.db), simIndexerConfig(fx.sim, { INDEXER_REFRESH_SECONDS: '3600' }), createLogger('standby', 'error'));
  try {
    await new Promise((r) => setTimeout(r, 500));
    expect(standby.status().map((s) => s.active)).toEqual([false, false]);
    // It says it stands by (healthy: ready), with no head or lag of its own, and its metrics publish
    // no indexing state for the clusters — only hadron_indexer_active 0; the active one publishes it.
    expect(await standby.ready()).toEqual({
      ready: true,
      detail: ['mainnet-beta', 'devnet'].map((cluster) => ({ cluster, role: 'standby', ready: true, note: expect.any(String) })),
    });
    const standing = await standby.metrics.registry.metrics();
    for (const cluster of ['mainnet-beta', 'devnet']) expect(standing).toContain(`hadron_indexer_active{cluster="${cluster}"} 0`);
    expect(standing).not.toMatch(/^hadron_indexer_(head_slot|cursor_slot|slot_lag|lag_seconds|gap_ledger_size|pools)\{/m);
    const indexing = await fx.indexer!.metrics.registry.metrics();
    for (const cluster of ['mainnet-beta', 'devnet']) {
      expect(indexing).toContain(`hadron_indexer_active{cluster="${cluster}"} 1`);
      expect(indexing).toMatch(new RegExp(`^hadron_indexer_head_slot\\{cluster="${cluster}"\\} [1-9]`, 'm'));
      expect(indexing).toMatch(new RegExp(`^hadron_indexer_slot_lag\\{cluster="${cluster}"\\} \\d`, 'm'));
    }
    const accountEvents = async () => (await readEventLog(fx.db)).filter((e) => e.type === 'FeeSplitChanged' || e.type === 'PoolConfigChanged').length;
    const before = await accountEvents();
    const headBefore = Math.max(...(['mainnet-beta', 'devnet'] as const).map((c) => fx.sim.groundTruth(c).head_slot));
    await fx.indexer!.stop();
    await waitFor('the standby to take over', () => standby.status().every((s) => s.active), 10_000, 100);
    fx.sim.advance('all', 20);
    for (const cluster of ['mainnet-beta', 'devnet'] as const) await waitFor(`${cluster} after failover`, () => caughtUp(fx.db, fx.sim, cluster), 30_000, 200);
    for (const cluster of ['mainnet-beta', 'devnet'] as const)
      expect(compareWithGroundTruth(await readEventLog(fx.db, cluster), fx.sim.groundTruth(cluster)).mismatches).toEqual([]);
    // The standby read its pools back from Postgres and re-read their accounts: nothing changed on chain, so nothing is announced.
    const changed = (['mainnet-beta', 'devnet'] as const).flatMap((c) =>
      [...fx.sim.groundTruth(c).fee_split_changes, ...fx.sim.groundTruth(c).pools.flatMap((p) => p.state_history)].filter((x) => x.slot > headBefore),
    );
    expect(changed).toEqual([]);
    expect(await accountEvents()).toBe(before);
    await waitFor('ready', async () => (await standby.ready()).ready, 10_000, 100);
    expect((await standby.ready()).detail).toEqual([
      expect.objectContaining({ cluster: 'mainnet-beta', role: 'active' }),
      expect.objectContaining({ cluster: 'devnet', role: 'active' }),
    ]);
    const tookOver = await standby.metrics.registry.metrics();
    expect(tookOver).toContain('hadron_indexer_active{cluster="devnet"} 1');
    expect(tookOver).toMatch(/^hadron_indexer_head_slot\{cluster="devnet"\} [1-9]/m);
  } finally {
    await standby.stop();
  }
}, 120_000);
