import type { HadronEvent } from '@hadron/contracts';
import { createLogger } from '@hadron/platform';
import type { TestDatabase } from '@hadron/platform/testing/test-database';
import { startIndexer, type RunningIndexer } from '../../apps/indexer/src/index';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import {
  caughtUp,
  compareWithGroundTruth,
  finalStateMismatches,
  groundTruthWithout,
  indexerDatabase,
  readEventLog,
  simIndexerConfig,
  storageOf,
  waitFor,
} from './indexer-harness';

/**
 * Where the backfill starts and what it can know there.
 * 1. INDEXER_START_TIME in the middle of the history: exactly the facts from then on, and every swap
 *    still gets its midprice and spread in effect — read back from the oracle's own history before
 *    the start (the last updates before it).
 * 2. A history small enough for one lookahead batch: account changes inside it (pauses, fee-split
 *    rewrites) are placed at the transactions that made them, so every swap after the last rewrite
 *    carries the split in effect.
 * 3. Accounts that do not read as expected: a fee config tail that is no split, a mint not served
 *    (its pools alone are held until it is).
 */

const HISTORY_END = 1_750_000_000_000;
let sim: RunningSimulator;
const dbs: TestDatabase[] = [];
const indexers: RunningIndexer[] = [];

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'indexer-window', pools: 6, historySeconds: 300, historyEndTimeMs: HISTORY_END, live: false });
}, 120_000);

afterAll(async () => {
  for (const i of indexers) await i.stop();
  await sim?.stop();
  for (const db of dbs) await db.drop();
});

async function index(extra: Record<string, string>, expectedSwaps?: number): Promise<TestDatabase> {
  const db = await indexerDatabase();
  dbs.push(db);
  indexers.push(
    await startIndexer(
      storageOf(db),
      simIndexerConfig(sim, { INDEXER_CLUSTERS: 'devnet', ...extra }),
      createLogger('window', process.env.TEST_LOG_LEVEL ?? 'warn'),
    ),
  );
  await waitFor('devnet caught up', () => caughtUp(db, sim, 'devnet', expectedSwaps), 60_000, 200);
  return db;
}

it('INDEXER_START_TIME: the facts from the start on, each swap priced by the last update before it — even the first ones', async () => {
  const gt = sim.groundTruth('devnet');
  const start = Math.floor(HISTORY_END / 1000) - 120;
  const db = await index({ INDEXER_START_SLOT: '', INDEXER_START_TIME: String(start) }, gt.swaps.filter((s) => s.block_time >= start).length); // '' = unset
  const events = await readEventLog(db, 'devnet');
  const windowed = {
    ...gt,
    swaps: gt.swaps.filter((s) => s.block_time >= start),
    oracle_updates: gt.oracle_updates.filter((u) => u.block_time >= start),
    vault_balance_changes: gt.vault_balance_changes.filter((v) => v.block_time >= start),
  };
  expect(windowed.swaps.length).toBeLessThan(gt.swaps.length);
  const cmp = compareWithGroundTruth(events, windowed, gt);
  expect(cmp.mismatches).toEqual([]);
  expect(cmp.counts.SwapExecuted).toBe(windowed.swaps.length);
  expect(cmp.unknownMidprice).toBe(0);
  expect(cmp.unknownSpread).toBe(0);
}, 120_000);

it('a history that fits one lookahead batch: pauses and fee-split rewrites are placed at their transactions', async () => {
  const gt = sim.groundTruth('devnet');
  const db = await index({ INDEXER_CHUNK_TXS: '100000' });
  const events = await readEventLog(db, 'devnet');
  const cmp = compareWithGroundTruth(events, gt);
  expect(cmp.mismatches).toEqual([]);
  expect(finalStateMismatches(events, gt)).toEqual([]);

  const byId = new Map(events.map((e) => [e.id, e]));
  const swapOf = (id: string) => byId.get(id) as Extract<HadronEvent, { type: 'SwapExecuted' }>;
  for (const pool of gt.pools) {
    const discovered = events.find((e) => e.type === 'PoolDiscovered' && e.pool === pool.config)!;
    // The pool's last account write in the history: a state change, a fee-split rewrite, or its creation.
    const writes = [
      ...pool.state_history.filter((h) => h.signature !== null).map((h) => ({ slot: h.slot, signature: h.signature })),
      ...gt.fee_split_changes.filter((c) => c.pool_config === pool.config && c.signature !== null).map((c) => ({ slot: c.slot, signature: c.signature })),
    ].sort((a, b) => a.slot - b.slot);
    const last = writes[writes.length - 1];
    if (last) expect([discovered.signature, discovered.slot]).toEqual([last.signature, last.slot]);
    else expect(discovered.slot).toBeLessThanOrEqual(Math.min(...gt.swaps.filter((x) => x.pool_config === pool.config).map((x) => x.slot))); // unwritten: known from its first transaction

    const lastSplit = gt.fee_split_changes.filter((c) => c.pool_config === pool.config).pop();
    for (const s of gt.swaps.filter((x) => x.pool_config === pool.config)) {
      // (the simulator runs admin transactions first in their slot, so a swap of the same slot comes after)
      const after = last === undefined || s.slot >= last.slot;
      if (after) expect(swapOf(s.event_id).data.feeSplit).toEqual(s.fee_split);
      else if (lastSplit && lastSplit.recipients.length > 0) expect(swapOf(s.event_id).data.feeSplit).toBeNull(); // before the split was observable
    }
  }
  expect(cmp.splitMatches).toBeGreaterThan(cmp.splitUntracked);
}, 120_000);

it('a mint the RPC does not return yet: only its pools are held (never announced with guessed decimals), every other pool flows; once it is served they are announced and their events are exact', async () => {
  const gt = sim.groundTruth('devnet');
  const poolsOf = (mint: string) => gt.pools.filter((p) => p.mint_x === mint || p.mint_y === mint);
  const mintAddress = [...new Set(gt.pools.flatMap((p) => [p.mint_x, p.mint_y]))].sort((a, b) => poolsOf(a).length - poolsOf(b).length)[0];
  const held = new Set(poolsOf(mintAddress).map((p) => p.config));
  expect(held.size).toBeLessThan(gt.pools.length);
  const ledger = sim.market('devnet').ledger;
  const mint = ledger.getAccount(mintAddress)!;
  ledger.setAccount(mintAddress, null, ledger.head);
  const db = await indexerDatabase();
  dbs.push(db);
  const indexer = await startIndexer(
    storageOf(db),
    simIndexerConfig(sim, { INDEXER_CLUSTERS: 'devnet', RPC_MAX_ATTEMPTS: '2' }),
    createLogger('window', process.env.TEST_LOG_LEVEL ?? 'silent'),
  );
  indexers.push(indexer);
  const others = groundTruthWithout(gt, held);
  try {
    await waitFor('every other pool indexed up to the head', () => caughtUp(db, sim, 'devnet', others.swaps.length), 60_000, 200);
    const events = await readEventLog(db, 'devnet');
    expect(events.filter((e) => held.has(e.pool))).toEqual([]);
    expect(compareWithGroundTruth(events, others, gt).mismatches).toEqual([]);
    // Visible: a recorded problem per held pool, the gauge, the status; not ready.
    const problems = await db.pool.query<{ pool: string }>("SELECT pool FROM indexer.problem WHERE code = 'mint_unavailable' ORDER BY pool");
    expect(new Set(problems.rows.map((r) => r.pool))).toEqual(held);
    expect(indexer.status()[0].heldPools).toBe(held.size);
    expect((await indexer.metrics.registry.getSingleMetric('hadron_indexer_pools_held')!.get()).values).toEqual([
      expect.objectContaining({ value: held.size }),
    ]);
    expect((await indexer.ready()).ready).toBe(false);
    expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM indexer.held_tx')).rows[0].n).toBeGreaterThan(0);
  } finally {
    ledger.setAccount(mintAddress, mint, ledger.head);
  }
  await waitFor('the held pools announced', async () => indexer.status()[0].heldPools === 0 && (await caughtUp(db, sim, 'devnet')), 60_000, 200);
  const events = await readEventLog(db, 'devnet');
  const cmp = compareWithGroundTruth(events, gt);
  expect(cmp.mismatches).toEqual([]); // the held pools' swaps too: every value in effect exact
  expect(cmp.counts.SwapExecuted).toBe(gt.swaps.length);
  const token = gt.tokens.find((t) => t.mint === mintAddress)!;
  const discovered = events.filter((e): e is Extract<typeof e, { type: 'PoolDiscovered' }> => e.type === 'PoolDiscovered' && held.has(e.pool));
  expect(discovered.map((e) => (e.data.tokenX.mint === mintAddress ? e.data.tokenX.decimals : e.data.tokenY.decimals))).toEqual(
    [...held].map(() => token.decimals),
  );
  expect((await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM indexer.held_tx')).rows[0].n).toBe(0);
  await waitFor('ready', async () => (await indexer.ready()).ready, 10_000, 100);
}, 120_000);

it('a v2 fee config whose tail is not a split (garbage bytes): its pool keeps its fee rate, takes the default recipient, and the problem is recorded', async () => {
  const before = sim.groundTruth('devnet');
  const pool = before.pools.find(
    (p) => p.has_pool_fee === 1 && p.program_version === 'v2' && before.fee_split_changes.some((c) => c.pool_config === p.config && c.recipients.length > 0),
  )!;
  // Rewrite the account's tail in place (no transaction): what a real v2 fee config with an unknown tail may hold.
  const ledger = sim.market('devnet').ledger;
  const account = ledger.getAccount(pool.fee_config)!;
  const data = Uint8Array.from(account.data);
  for (let i = 72; i < data.length; i++) data[i] = (i * 131 + 7) & 0xff;
  ledger.setAccount(pool.fee_config, { ...account, data }, ledger.head);

  const db = await index({});
  const events = await readEventLog(db, 'devnet');
  const own = events.filter((e) => e.pool === pool.config);
  const truthPpm = before.fee_split_changes.filter((c) => c.pool_config === pool.config).pop()!.fee_ppm;
  expect(own.find((e) => e.type === 'PoolDiscovered')).toMatchObject({ data: { feePpm: truthPpm, feeConfig: pool.fee_config } });
  expect(own.filter((e) => e.type === 'FeeSplitChanged').map((e) => e.type === 'FeeSplitChanged' && e.data.recipients)).toEqual([[]]);
  const swaps = own.filter((e) => e.type === 'SwapExecuted');
  expect(swaps.length).toBeGreaterThan(0);
  for (const s of swaps) expect(s.type === 'SwapExecuted' && s.data.feeSplit).toBeNull();
  const problems = await db.pool.query<{ code: string; pool: string }>("SELECT code, pool FROM indexer.problem WHERE code = 'implausible_fee_split'");
  expect(problems.rows).toEqual([{ code: 'implausible_fee_split', pool: pool.config }]);
  expect((await indexers[indexers.length - 1].metrics.registry.getSingleMetric('hadron_indexer_fee_splits_unreadable')!.get()).values).toEqual([
    expect.objectContaining({ value: 1 }),
  ]);

  // Every other pool is untouched by it.
  expect(
    compareWithGroundTruth(
      events.filter((e) => e.pool !== pool.config),
      groundTruthWithout(before, new Set([pool.config])),
      before,
    ).mismatches,
  ).toEqual([]);
}, 120_000);
