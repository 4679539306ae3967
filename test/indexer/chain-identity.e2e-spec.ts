import { createLogger } from '@hadron/platform';
import { startIndexer, type RunningIndexer } from '../../apps/indexer/src/index';
import { CLUSTERS, caughtUp, compareWithGroundTruth, readEventLog, simIndexerConfig, storageOf, useSimulatedCluster, waitFor } from './indexer-harness';

/**
 * THE CHAIN AN INDEX WAS BUILT FROM. The first indexer of a cluster pins the genesis hash its RPC
 * serves; an indexer whose RPC later serves another chain (here: the two clusters' URLs swapped, as
 * an operator might swap two variables) refuses to index it, says why in its log and readiness,
 * and writes nothing, until its RPC serves the pinned chain again. Before, it read the other
 * chain's history as transactions "listed late" and appended them to the log under the wrong
 * cluster.
 */
const fx = useSimulatedCluster({ seed: 'chain-identity', pools: 3, historySeconds: 60 });

/** The genesis hash a simulated cluster answers over JSON-RPC (asked directly, not through the indexer's client). */
async function genesisOf(url: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getGenesisHash' }),
  });
  return ((await res.json()) as { result: string }).result;
}

async function logCount(): Promise<number> {
  const { rows } = await fx.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM event_log');
  return Number(rows[0].n);
}

async function indexerState(): Promise<unknown> {
  const [cursors, programs, gaps] = await Promise.all([
    fx.db.pool.query('SELECT cluster, through_slot, last_signature, cycle FROM indexer.cluster_cursor ORDER BY cluster'),
    fx.db.pool.query('SELECT cluster, program_id, slot, signature FROM indexer.program_cursor ORDER BY cluster, program_id'),
    fx.db.pool.query('SELECT count(*)::int AS n FROM indexer.gap'),
  ]);
  return { cursors: cursors.rows, programs: programs.rows, gaps: gaps.rows[0].n };
}

async function stop(indexer: RunningIndexer): Promise<void> {
  await indexer.stop();
  fx.indexer = undefined;
}

it('pins each cluster to its chain; URLs swapped, both clusters refuse and write nothing; swapped back, indexing resumes exactly', async () => {
  const urls = { 'mainnet-beta': fx.sim.urls['mainnet-beta'], devnet: fx.sim.urls.devnet };
  const genesis = { 'mainnet-beta': await genesisOf(urls['mainnet-beta']), devnet: await genesisOf(urls.devnet) };
  expect(genesis['mainnet-beta']).not.toBe(genesis.devnet);

  // First run: each cluster indexed from its own RPC, its genesis pinned.
  fx.indexer = await startIndexer(storageOf(fx.db), simIndexerConfig(fx.sim), createLogger('chain-identity', process.env.TEST_LOG_LEVEL ?? 'silent'));
  for (const c of CLUSTERS) await waitFor(`${c} backfilled`, () => caughtUp(fx.db, fx.sim, c), 60_000, 200);
  await stop(fx.indexer);
  const pins = await fx.db.pool.query<{ cluster: string; genesis_hash: string }>('SELECT cluster, genesis_hash FROM indexer.chain ORDER BY cluster');
  expect(pins.rows).toEqual([
    { cluster: 'devnet', genesis_hash: genesis.devnet },
    { cluster: 'mainnet-beta', genesis_hash: genesis['mainnet-beta'] },
  ]);

  // Both chains move on; then the URLs are swapped.
  fx.sim.advance('all', 20);
  const eventsBefore = await logCount();
  const stateBefore = await indexerState();
  const lines: { level: number; msg: string; cluster?: string; genesis?: string; pinned?: string }[] = [];
  const swapped = simIndexerConfig(fx.sim, { RPC_URL_MAINNET_BETA: urls.devnet, RPC_URL_DEVNET: urls['mainnet-beta'] });
  fx.indexer = await startIndexer(
    storageOf(fx.db),
    swapped,
    createLogger('chain-identity', 'info', { write: (l: string) => void lines.push(JSON.parse(l)) }, 'json'),
  );
  const refusing = () => fx.indexer!.status().every((s) => s.wrongChain !== null);
  await waitFor('both clusters refusing', refusing, 20_000, 100);
  // Give a wrong indexer time to do damage: several of its polls (INDEXER_POLL_MS 100).
  await new Promise((r) => setTimeout(r, 2_000));

  const ready = await fx.indexer.ready();
  expect(ready.ready).toBe(false);
  for (const s of fx.indexer.status()) {
    const other = s.cluster === 'devnet' ? 'mainnet-beta' : 'devnet';
    expect(s.active).toBe(true); // it holds the cluster, so a misconfigured replica is seen, not a silent standby
    expect(s.wrongChain).toContain(`genesis ${genesis[other]}`);
    expect(s.wrongChain).toContain(`genesis ${genesis[s.cluster]}`);
    expect(s.wrongChain).toContain(s.cluster === 'devnet' ? 'RPC_URL_DEVNET' : 'RPC_URL_MAINNET_BETA');
  }
  // Alertable: hadron_indexer_wrong_chain is 1 for each cluster.
  const gauge = async () => Object.fromEntries((await fx.indexer!.metrics.wrongChain.get()).values.map((v) => [v.labels.cluster, v.value]));
  expect(await gauge()).toEqual({ 'mainnet-beta': 1, devnet: 1 });
  const refusals = lines.filter((l) => l.level === 50 && l.msg.startsWith('refusing to index'));
  expect(refusals.map((l) => [l.cluster, l.genesis, l.pinned]).sort()).toEqual([
    ['devnet', genesis['mainnet-beta'], genesis.devnet],
    ['mainnet-beta', genesis.devnet, genesis['mainnet-beta']],
  ]);
  // Nothing written: no event, no cursor moved, nothing taken for transactions listed late.
  expect(await logCount()).toBe(eventsBefore);
  expect(await indexerState()).toEqual(stateBefore);
  await stop(fx.indexer);

  // The right URLs again: both clusters catch up on their own chains, exactly.
  fx.indexer = await startIndexer(storageOf(fx.db), simIndexerConfig(fx.sim), createLogger('chain-identity', process.env.TEST_LOG_LEVEL ?? 'silent'));
  for (const c of CLUSTERS) await waitFor(`${c} caught up`, () => caughtUp(fx.db, fx.sim, c), 60_000, 200);
  expect(await logCount()).toBeGreaterThan(eventsBefore);
  for (const c of CLUSTERS) expect(compareWithGroundTruth(await readEventLog(fx.db, c), fx.sim.groundTruth(c)).mismatches).toEqual([]);
  expect(fx.indexer.status().every((s) => s.wrongChain === null)).toBe(true);
  expect(await gauge()).toEqual({ 'mainnet-beta': 0, devnet: 0 });
}, 180_000);
