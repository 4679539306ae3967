import { createLogger, MAX_LOG_LINE_BYTES, type LogDestination } from '@hadron/platform';
import { startIndexer } from '../../apps/indexer/src/index';
import { simIndexerConfig, storageOf, useSimulatedCluster, waitFor } from './indexer-harness';

/**
 * BOUNDED LOG LINES. Thousands of transactions the RPC lists but never serves go to the gap
 * ledger in one chunk, then thousands more are listed late (a signature index far behind its
 * bank): the warnings about them state how many there are, show the first few, and say where the
 * full list lives — every line the indexer writes stays under 4 KB (log shippers drop longer ones).
 */

const CLUSTER = 'devnet';
const fx = useSimulatedCluster({ seed: 'indexer-log-size', pools: 4, historySeconds: 300, swapsPerSecond: 3 });

/** Every line the indexer logged (JSON, debug level and up), as written. */
const lines: string[] = [];
const destination: LogDestination = { write: (line: string) => void lines.push(line) };
const parsed = () => lines.map((l) => JSON.parse(l) as { msg: string; [k: string]: unknown });
const counter = async (name: string) => Number((await fx.indexer!.metrics.registry.getSingleMetric(name)!.get()).values.reduce((a, v) => a + v.value, 0));
const gapLedger = async () => (await fx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM indexer.gap WHERE cluster = $1', [CLUSTER])).rows[0].n;

function expectEveryLineBounded(): void {
  const sizes = lines.map((l) => Buffer.byteLength(l));
  expect(lines.length).toBeGreaterThan(0);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_LOG_LINE_BYTES);
  // Bounded at the call sites, not cut by the logger's last-resort guard.
  expect(parsed().filter((l) => l.truncated === true)).toEqual([]);
}

it('thousands of transactions never served: one gap-ledger warning with their count and the first five, every line under 4 KB', async () => {
  // 90 % of the transactions answer null to every getTransaction; no grace, one attempt: straight to the gap ledger.
  fx.sim.setFaults('all', { rate: 0, kinds: ['missing-tx'], missingTxRate: 0.9, missingTxRequests: 1_000_000, seed: 'log-size' });
  const config = simIndexerConfig(fx.sim, {
    INDEXER_CLUSTERS: CLUSTER,
    INDEXER_GAP_GRACE_SECONDS: '0',
    INDEXER_GAP_RETRY_SECONDS: '3600',
    RPC_MAX_ATTEMPTS: '1',
    RPC_TX_BATCH: '200',
    INDEXER_CHUNK_TXS: '20000',
    INDEXER_TX_POSITIONS: 'none',
    INDEXER_REFRESH_SECONDS: '3600',
  });
  fx.indexer = await startIndexer(storageOf(fx.db), config, createLogger('indexer-log-size', 'debug', destination, 'json'));
  const head = fx.sim.groundTruth(CLUSTER).head_slot;
  await waitFor(
    'the backfill past the head with the missing transactions in the gap ledger',
    async () => {
      const { rows } = await fx.db.pool.query<{ through_slot: string | null }>('SELECT through_slot FROM indexer.cluster_cursor WHERE cluster = $1', [CLUSTER]);
      return Number(rows[0]?.through_slot ?? -1) >= head;
    },
    45_000,
    200,
  );
  const ledger = await gapLedger();
  expect(ledger).toBeGreaterThanOrEqual(2000);

  expectEveryLineBounded();
  const warnings = parsed().filter((l) => /not fetched after every retry: recorded in the gap ledger/.test(l.msg));
  const recorded = warnings.map((w) => (w.gaps as { count: number }).count);
  expect(recorded.reduce((a, n) => a + n, 0)).toBe(await counter('hadron_indexer_gaps_recorded_total'));
  expect(Math.max(...recorded)).toBeGreaterThanOrEqual(2000); // thousands in one warning
  for (const w of warnings) {
    const gaps = w.gaps as { count: number; first: { signature: string; error: string }[] };
    expect(w.msg).toContain(`${gaps.count} transaction(s) not fetched`);
    expect(w.msg).toContain('indexer.gap');
    expect(gaps.first).toHaveLength(Math.min(5, gaps.count));
    expect(gaps.first[0].signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
  }
  // eslint-disable-next-line no-console
  console.log(
    JSON.stringify({ lines: lines.length, largestLine: Math.max(...lines.map((l) => Buffer.byteLength(l))), gapLedger: ledger, gapWarnings: recorded }),
  );
}, 60_000);

it('thousands of transactions listed late: warnings with their count and the first five, every line under 4 KB', async () => {
  // Every transaction is served now. The signature index trails its bank by 600 slots while the chain
  // moves: the chain grows 660 slots at once, the indexer lists the first 60 and indexes through the
  // head; once the index catches up, the other 600 slots' transactions are listed below the cursor.
  fx.sim.setFaults('all', { rate: 0, kinds: [], missingTxRate: 0, signatureIndexLagSlots: 600, signatureIndexCatchUpMs: 1500, signatureIndexContext: 'bank' });
  const before = lines.length;
  const lateBefore = await counter('hadron_indexer_late_listed_total');
  fx.sim.advance(CLUSTER, 660);
  await waitFor('the late transactions listed', async () => (await counter('hadron_indexer_late_listed_total')) - lateBefore >= 1500, 30_000, 200);

  expectEveryLineBounded();
  const warnings = parsed()
    .slice(before)
    .filter((l) => /listed \d+ transaction\(s\) of slots already indexed/.test(l.msg));
  const late = warnings.map((w) => (w.late as { count: number }).count);
  expect(late.reduce((a, n) => a + n, 0)).toBe((await counter('hadron_indexer_late_listed_total')) - lateBefore);
  // Listed per program, the late ones may come in two cycles; either list in full would be far over 4 KB (50 signatures are).
  expect(Math.max(...late)).toBeGreaterThanOrEqual(500);
  for (const w of warnings) {
    const list = w.late as { count: number; first: string[] };
    expect(w.msg).toContain(`listed ${list.count} transaction(s)`);
    expect(list.first).toHaveLength(Math.min(5, list.count));
  }
  // eslint-disable-next-line no-console
  console.log(JSON.stringify({ lines: lines.length, largestLine: Math.max(...lines.map((l) => Buffer.byteLength(l))), lateWarnings: late }));
}, 60_000);
