/**
 * Decode throughput on one core (DESIGN §6 target: ≥ 20,000 tx/s). Decodes the golden transactions
 * (swaps direct, via CPI and via lookup table, oracle updates, a failed swap) round-robin for ~3 s.
 * Baseline in the same run: JSON.parse of the same transactions' wire JSON, the least any indexer
 * pays per transaction it reads (bench:indexer measures both inside a real backfill).
 *   node -r ./scripts/register-ts.js apps/indexer/bench/decode.bench.ts [--json <file>]
 */
import { performance } from 'node:perf_hooks';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { decodeTransaction } from '../src/decode';
import { fixtureContext, swapTransactionVectors } from '../src/decode/testing/swap-transaction-vectors';

const ctx = fixtureContext();
const txs = swapTransactionVectors.cases.map((c) => c.result);
const wire = txs.map((t) => JSON.stringify(t));

/** Runs `one(i)` round-robin for `ms`; returns transactions per second and what `one` returned, summed (so nothing is optimised away). */
function run(ms: number, one: (i: number) => number): { count: number; elapsed: number; sum: number } {
  let count = 0;
  let sum = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 1000; i++) sum += one(count++ % txs.length);
    now = performance.now();
  }
  return { count, elapsed: now - start, sum };
}

const decode = (i: number) => decodeTransaction(txs[i], ctx).events.length;
const parse = (i: number) => (JSON.parse(wire[i]) as { slot: number }).slot & 1;

const report = new BenchReport('indexer-decode');
run(500, parse); // warm up the JIT
const parsed = run(3000, parse);
report.add({
  case: 'JSON.parse of the wire JSON (one core)',
  events_per_s: (parsed.count / parsed.elapsed) * 1000,
  p50_ms: null,
  p99_ms: null,
  baseline: true,
  transactions: parsed.count,
  bytes_per_tx: Math.round(wire.reduce((a, w) => a + w.length, 0) / wire.length),
});
run(500, decode);
const { count, elapsed, sum } = run(3000, decode);
report.add({
  case: 'decodeTransaction (one core)',
  events_per_s: (count / elapsed) * 1000,
  p50_ms: null,
  p99_ms: null,
  baseline: false,
  transactions: count,
  facts: sum,
});
console.log(
  `decodeTransaction: ${Math.round((count / elapsed) * 1000).toLocaleString('en-US')} tx/s (${count} tx in ${(elapsed / 1000).toFixed(2)} s, ${sum} events, mix of ${txs.length} golden transactions)`,
);
report.set('golden_transactions', txs.length);
report.write();
