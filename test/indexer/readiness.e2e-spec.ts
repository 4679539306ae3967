import { createLogger } from '@hadron/platform';
import { startIndexer } from '../../apps/indexer/src/index';
import { caughtUp, compareWithGroundTruth, readEventLog, simIndexerConfig, startRpcProxy, storageOf, useSimulatedCluster, waitFor } from './indexer-harness';

/**
 * READINESS OF A STALLED INDEXER. A proxy in front of the simulated cluster answers getBlock for
 * chosen slots with an error. While the block positions of new slots are refused (-32004, which
 * can pass), every cycle fails and the cursor stays put: the head keeps being read, and the
 * indexer stops being ready although its lag is far below INDEXER_READY_MAX_SLOT_LAG. A block the
 * node will never serve (-32009) does not stall it forever: that slot keeps the listing's order,
 * txIndex null, with a recorded problem.
 */

/** getBlock error to answer for a slot, or null to forward. */
let blockError: (slot: number) => { code: number; message: string } | null = () => null;
const fx = useSimulatedCluster({ seed: 'indexer-ready', pools: 4, historySeconds: 60 }, async (f) => {
  f.proxy = await startRpcProxy(f.sim.urls.devnet, (call) => {
    const error = call.method === 'getBlock' ? blockError(call.params[0] as number) : null;
    return error ? { error } : undefined;
  });
});

const ready = async () => (await fx.indexer!.ready()).ready;

it('stops being ready while its cycles keep failing behind the head, and a block that is gone for good does not stall it', async () => {
  const config = simIndexerConfig(fx.sim, {
    INDEXER_CLUSTERS: 'devnet',
    RPC_URL_DEVNET: fx.proxy!.url,
    RPC_MAX_ATTEMPTS: '2',
    INDEXER_TX_POSITIONS: 'all',
    // A snapshot every cycle: a failed cycle is resumed from its saved record (the path that never read the head).
    INDEXER_REFRESH_SECONDS: '1',
    INDEXER_READY_MAX_STALL_SECONDS: '2',
    INDEXER_READY_MAX_CYCLE_ERRORS: '3',
  });
  fx.indexer = await startIndexer(storageOf(fx.db), config, createLogger('indexer-ready', process.env.TEST_LOG_LEVEL ?? 'silent'));
  await waitFor('backfill', () => caughtUp(fx.db, fx.sim, 'devnet'), 60_000, 200);
  await waitFor('ready', ready, 10_000, 100);

  // New slots whose blocks the node does not serve yet, for as long as the test says.
  const stuckAfter = fx.sim.groundTruth('devnet').head_slot;
  blockError = (slot) => (slot > stuckAfter ? { code: -32004, message: `Block not available for slot ${slot}` } : null);
  fx.sim.advance('devnet', 12);
  const truth = fx.sim.groundTruth('devnet');
  expect(truth.swaps.length + truth.oracle_updates.length).toBeGreaterThan(0);
  await waitFor('not ready while stalled', async () => !(await ready()), 30_000, 100);
  const [status] = fx.indexer.status();
  expect(status.slotLag).toBeGreaterThan(0);
  expect(status.slotLag).toBeLessThanOrEqual(config.INDEXER_READY_MAX_SLOT_LAG); // the lag alone would still say ready
  expect(status.cursorSlot).toBeLessThanOrEqual(stuckAfter);

  // One of those slots turns out to be gone for good (skipped / not in storage); the others are served again.
  const slotsWithTx = [...new Set([...truth.swaps, ...truth.oracle_updates].filter((x) => x.slot > stuckAfter).map((x) => x.slot))];
  const gone = slotsWithTx[0];
  blockError = (slot) => (slot === gone ? { code: -32009, message: `Slot ${slot} was skipped, or missing in long-term storage` } : null);
  await waitFor('caught up past the missing block', () => caughtUp(fx.db, fx.sim, 'devnet'), 30_000, 200);
  await waitFor('ready again', ready, 10_000, 100);

  const events = await readEventLog(fx.db, 'devnet');
  expect(compareWithGroundTruth(events, fx.sim.groundTruth('devnet')).mismatches).toEqual([]);
  const inGone = events.filter((e) => e.slot === gone && e.signature !== null);
  expect(inGone.length).toBeGreaterThan(0);
  for (const e of inGone) expect(e.txIndex).toBeNull();
  const problems = await fx.db.pool.query<{ code: string; slot: string }>("SELECT code, slot FROM indexer.problem WHERE code = 'positions_unavailable'");
  expect(problems.rows).toEqual([{ code: 'positions_unavailable', slot: String(gone) }]);
}, 120_000);
