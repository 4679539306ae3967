import { decodeTransaction } from '../decode';
import { fixtureContext, vectorCase } from '../decode/testing/swap-transaction-vectors';
import { factsFor } from './held-pools';

/** A held pool's part of a transaction is set aside; every other pool's is built now. */

const ctx = fixtureContext();
const swap = vectorCase('a_v1_sell_x_legacy_with_spread_config');
const update = vectorCase('d_v2_update_midprice_and_base_spread');

describe('the facts of a transaction, by pool', () => {
  it('given a swap of a held pool, then its swap and vault balances are set aside and the pool is named', () => {
    const facts = decodeTransaction(swap.result, ctx);
    const pool = (facts.events[0] as { poolConfig: string }).poolConfig;
    expect(facts.vaultBalances.map((v) => v.poolConfig)).toContain(pool);
    const now = factsFor(facts, [], (c) => c !== pool);
    expect(now.facts.events).toEqual([]);
    expect(now.facts.vaultBalances.filter((v) => v.poolConfig === pool)).toEqual([]);
    expect(now.refused).toEqual(new Set([pool]));
    // …and replayed later: only that pool's part.
    const later = factsFor(facts, [], (c) => c === pool);
    expect(later.facts.events).toEqual(facts.events);
    expect(later.refused).toEqual(new Set());
  });

  it('given a transaction of pools not held, then nothing is set aside', () => {
    const facts = decodeTransaction(update.result, ctx);
    const now = factsFor(facts, [{ programId: 'P', config: 'C', initialMidpriceQ32: '1' }], () => true);
    expect(now.facts).toEqual(facts);
    expect(now.initializes).toHaveLength(1);
    expect(now.refused.size).toBe(0);
  });

  it('given an Initialize of a held pool, then it waits with the pool', () => {
    const facts = decodeTransaction(update.result, ctx);
    const now = factsFor(facts, [{ programId: 'P', config: 'HELD', initialMidpriceQ32: '1' }], (c) => c !== 'HELD');
    expect(now.initializes).toEqual([]);
    expect(now.refused).toEqual(new Set(['HELD']));
  });
});
