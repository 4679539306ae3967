import { createLogger } from '@hadron/platform';
import type { TestDatabase } from '@hadron/platform/testing/test-database';
import { startIndexer, type RunningIndexer } from '../../apps/indexer/src/index';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import { caughtUp, compareWithGroundTruth, indexerDatabase, readEventLog, simIndexerConfig, startRpcProxy, storageOf, waitFor } from './indexer-harness';

/**
 * READINESS OF A STALLED INDEXER. A proxy in front of the simulated cluster answers getBlock for
 * chosen slots with an error. While the block positions of new slots are refused (-32004, which
 * can pass), every cycle fails and the cursor stays put: the head keeps being read, and the
 * indexer stops being ready although its lag is far below INDEXER_READY_MAX_SLOT_LAG. A block the
 * node will never serve (-32009) does not stall it forever: that slot keeps the listing's order,
 * txIndex null, with a recorded problem.
 */

const HISTORY_END = 1_750_000_000_000;
let sim: RunningSimulator;
let db: TestDatabase;
let indexer: RunningIndexer | undefined;
let proxy: Awaited<ReturnType<typeof startRpcProxy>>;
/** getBlock error to answer for a slot, or null to forward. */
let blockError: (slot: number) => { code: number; message: string } | null = () => null;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'indexer-ready', pools: 4, historySeconds: 60, historyEndTimeMs: HISTORY_END, live: false });
  db = await indexerDatabase();
  proxy = await startRpcProxy(sim.urls.devnet, (call) => {
    const error = call.method === 'getBlock' ? blockError(call.params[0] as number) : null;
    return error ? { error } : undefined;
  });
}, 120_000);

afterAll(async () => {
  await indexer?.stop();
  await proxy?.close();
  await sim?.stop();
  await db?.drop();
});

const ready = async () => (await indexer!.ready()).ready;

it('stops being ready while its cycles keep failing behind the head, and a block that is gone for good does not stall it', async () => {
  const config = simIndexerConfig(sim, {
    INDEXER_CLUSTERS: 'devnet',
    RPC_URL_DEVNET: proxy.url,
    RPC_MAX_ATTEMPTS: '2',
    INDEXER_TX_POSITIONS: 'all',
    // A snapshot every cycle: a failed cycle is resumed from its saved record (the path that never read the head).
    INDEXER_REFRESH_SECONDS: '1',
    INDEXER_READY_MAX_STALL_SECONDS: '2',
    INDEXER_READY_MAX_CYCLE_ERRORS: '3',
  });
  indexer = await startIndexer(storageOf(db), config, createLogger('indexer-ready', process.env.TEST_LOG_LEVEL ?? 'silent'));
  await waitFor('backfill', () => caughtUp(db, sim, 'devnet'), 60_000, 200);
  await waitFor('ready', ready, 10_000, 100);

  // New slots whose blocks the node does not serve yet, for as long as the test says.
  const stuckAfter = sim.groundTruth('devnet').head_slot;
  blockError = (slot) => (slot > stuckAfter ? { code: -32004, message: `Block not available for slot ${slot}` } : null);
  sim.advance('devnet', 12);
  const truth = sim.groundTruth('devnet');
  expect(truth.swaps.length + truth.oracle_updates.length).toBeGreaterThan(0);
  await waitFor('not ready while stalled', async () => !(await ready()), 30_000, 100);
  const [status] = indexer.status();
  expect(status.slotLag).toBeGreaterThan(0);
  expect(status.slotLag).toBeLessThanOrEqual(config.INDEXER_READY_MAX_SLOT_LAG); // the lag alone would still say ready
  expect(status.cursorSlot).toBeLessThanOrEqual(stuckAfter);

  // One of those slots turns out to be gone for good (skipped / not in storage); the others are served again.
  const slotsWithTx = [...new Set([...truth.swaps, ...truth.oracle_updates].filter((x) => x.slot > stuckAfter).map((x) => x.slot))];
  const gone = slotsWithTx[0];
  blockError = (slot) => (slot === gone ? { code: -32009, message: `Slot ${slot} was skipped, or missing in long-term storage` } : null);
  await waitFor('caught up past the missing block', () => caughtUp(db, sim, 'devnet'), 30_000, 200);
  await waitFor('ready again', ready, 10_000, 100);

  const events = await readEventLog(db, 'devnet');
  expect(compareWithGroundTruth(events, sim.groundTruth('devnet')).mismatches).toEqual([]);
  const inGone = events.filter((e) => e.slot === gone && e.signature !== null);
  expect(inGone.length).toBeGreaterThan(0);
  for (const e of inGone) expect(e.txIndex).toBeNull();
  const problems = await db.pool.query<{ code: string; slot: string }>("SELECT code, slot FROM indexer.problem WHERE code = 'positions_unavailable'");
  expect(problems.rows).toEqual([{ code: 'positions_unavailable', slot: String(gone) }]);
}, 120_000);
