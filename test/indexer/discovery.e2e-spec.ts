import { createLogger } from '@hadron/platform';
import { startIndexer } from '../../apps/indexer/src/index';
import { caughtUp, readEventLog, simIndexerConfig, startRpcProxy, storageOf, useSimulatedCluster, waitFor } from './indexer-harness';

/**
 * DISCOVERY COST. getProgramAccounts is the most expensive call we make. A pool that discovery
 * cannot find (here: a proxy drops its config from every getProgramAccounts answer) still trades,
 * so its swaps and oracle updates name an unknown pool at every poll. They must not cost a full
 * discovery per poll: at most one per refresh interval. A new pool's Initialize is still
 * discovered at once. Config accounts of both sizes are looked for on both programs.
 */

let hidden: string;
const asked = new Set<string>();
const fx = useSimulatedCluster({ seed: 'indexer-discovery', pools: 4, historySeconds: 60, newPoolAfterSeconds: 3 }, async (f) => {
  hidden = f.sim.groundTruth('devnet').pools[0].config;
  f.proxy = await startRpcProxy(f.sim.urls.devnet, (call) => {
    if (call.method !== 'getProgramAccounts') return undefined;
    const [program, config] = call.params as [string, { filters: { dataSize: number }[] }];
    asked.add(`${program}:${config.filters[0].dataSize}`);
    const result = call.reply.result as { context: unknown; value: { pubkey: string }[] };
    return { result: { ...result, value: result.value.filter((a) => a.pubkey !== hidden) } };
  });
});

const discoveryCalls = async () =>
  (await fx.indexer!.metrics.registry.getSingleMetric('hadron_indexer_rpc_calls_total')!.get()).values
    .filter((v) => v.labels.method === 'getProgramAccounts')
    .reduce((a, v) => a + v.value, 0);
const visibleSwaps = () => fx.sim.groundTruth('devnet').swaps.filter((s) => s.pool_config !== hidden).length;

it('a pool discovery cannot find costs no discovery per poll; a new Initialize is discovered at once', async () => {
  const config = simIndexerConfig(fx.sim, { INDEXER_CLUSTERS: 'devnet', RPC_URL_DEVNET: fx.proxy!.url, INDEXER_REFRESH_SECONDS: '3600' });
  fx.indexer = await startIndexer(storageOf(fx.db), config, createLogger('indexer-discovery', process.env.TEST_LOG_LEVEL ?? 'silent'));
  await waitFor('backfill', () => caughtUp(fx.db, fx.sim, 'devnet', visibleSwaps()), 60_000, 200);
  const before = await discoveryCalls();
  const headBefore = fx.sim.groundTruth('devnet').head_slot;

  // ~12 polls, each seeing transactions of the hidden pool; a new pool is created a few seconds in.
  for (let i = 0; i < 12; i++) {
    fx.sim.advance('devnet', 5);
    await new Promise((r) => setTimeout(r, 150));
  }
  await waitFor('live tail', () => caughtUp(fx.db, fx.sim, 'devnet', visibleSwaps()), 30_000, 200);

  const gt = fx.sim.groundTruth('devnet');
  const created = gt.pools.find((p) => p.created_slot > headBefore)!;
  expect(created).toBeDefined();
  expect(
    [...gt.swaps, ...gt.oracle_updates].filter((x) => x.slot > headBefore && ('pool_config' in x ? x.pool_config : x.pool_config_via_registry) === hidden)
      .length,
  ).toBeGreaterThan(5);
  // One discovery in all — the Initialize's — of 2 programs × 2 config sizes.
  expect((await discoveryCalls()) - before).toBe(4);
  const events = await readEventLog(fx.db, 'devnet');
  const discovered = events.find((e) => e.type === 'PoolDiscovered' && e.pool === created.config)!;
  expect([discovered.signature, discovered.slot]).toEqual([created.created_signature, created.created_slot]);
  expect(events.some((e) => e.pool === hidden)).toBe(false);
  const problems = await fx.db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM indexer.problem WHERE code = 'unknown_pool'");
  expect(problems.rows[0].n).toBeGreaterThan(0);
  expect([...asked].sort()).toEqual([`${gt.programs.v1}:248`, `${gt.programs.v1}:724`, `${gt.programs.v2}:248`, `${gt.programs.v2}:724`].sort());
}, 120_000);
