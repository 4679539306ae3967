/**
 * Decode throughput on one core (DESIGN §6 target: ≥ 20,000 tx/s). Decodes the golden transactions
 * (swaps direct, via CPI and via lookup table, oracle updates, a failed swap) round-robin for ~3 s.
 *   node -r ./scripts/register-ts.js apps/indexer/bench/decode.bench.ts
 */
import { performance } from 'node:perf_hooks';
import { decodeTransaction } from '../src/decode';
import { fixtureContext, swapTransactionVectors } from '../src/decode/testing/swap-transaction-vectors';

const ctx = fixtureContext();
const txs = swapTransactionVectors.cases.map((c) => c.result);

function run(ms: number): { count: number; elapsed: number; facts: number } {
  let count = 0;
  let facts = 0; // consumed, so the work cannot be optimised away
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 1000; i++) facts += decodeTransaction(txs[count++ % txs.length], ctx).events.length;
    now = performance.now();
  }
  return { count, elapsed: now - start, facts };
}

run(500); // warm up the JIT
const { count, elapsed, facts } = run(3000);
console.log(
  `decodeTransaction: ${Math.round((count / elapsed) * 1000).toLocaleString('en-US')} tx/s (${count} tx in ${(elapsed / 1000).toFixed(2)} s, ${facts} events, mix of ${txs.length} golden transactions)`,
);
