import type { AccountState } from '../discovery/pool-accounts';
import type { AccountsSnapshot } from '../discovery/pool-reader';
import type { OracleUpdateFact } from '../decode';
import { factFromVector, fixtureContext, vectorCase } from '../decode/testing/swap-transaction-vectors';
import type { SolanaRpc, WireTransaction } from '../source/solana-rpc';
import { fieldsMaybeSetInRange, fieldsSetInRange, lookbackOracleState, startFromSnapshot } from './oracle-lookback';

/** The oracle state at the start of a range: the read at C for fields the range does not set, else the history before it. */

const ctx = fixtureContext();
const both = vectorCase('d_v2_update_midprice_and_base_spread');
const midOnly = vectorCase('e_v1_update_midprice_only');
const poolOf = (c: typeof both) => {
  const update = factFromVector(c.expected.events[0]) as OracleUpdateFact;
  return { config: update.poolConfigViaRegistry as string, oracle: update.oracle };
};
const tx = (c: typeof both) => c.result as WireTransaction;

function snapshotOf(config: string, oracle: AccountState['oracle']): AccountsSnapshot {
  const state: AccountState = { state: 1, authority: 'A', oracleMode: 0, spreadConfigInitialized: false, hasPoolFee: false, feeConfig: 'F', fee: null, oracle };
  return { slot: 100, pools: { [config]: state } };
}

/** An RPC that must not be called. */
const noRpc = new Proxy({}, { get: () => () => Promise.reject(new Error('no RPC call expected')) }) as unknown as SolanaRpc;

describe('fieldsSetInRange', () => {
  it('given an update setting both fields, or one setting only the midprice, then it says which', () => {
    expect(fieldsSetInRange([tx(both)], poolOf(both), ctx)).toEqual(new Set(['midprice', 'spread']));
    expect(fieldsSetInRange([tx(midOnly)], poolOf(midOnly), ctx)).toEqual(new Set(['midprice']));
    expect(fieldsSetInRange([tx(midOnly)], poolOf(both), ctx)).toEqual(new Set()); // another oracle's update
  });
});

describe('the fields a lookback looks for', () => {
  const pool = poolOf(midOnly);
  const slot = midOnly.result.slot;

  it('given every transaction of the range fetched, then exactly the fields they set', () => {
    expect(fieldsMaybeSetInRange({ firstSlot: slot, txs: [tx(midOnly)] }, pool, ctx, { lastUpdateSlot: String(slot) })).toEqual(new Set(['midprice']));
    expect(fieldsMaybeSetInRange({ firstSlot: slot, txs: [] }, pool, ctx, { lastUpdateSlot: String(slot) })).toEqual(new Set());
  });

  it('given a transaction of the range not served (it may be an update), then both are looked for — not the read at C taken for the start', () => {
    expect(fieldsMaybeSetInRange({ firstSlot: slot, txs: [tx(both), null] }, pool, ctx, { lastUpdateSlot: String(slot + 5) })).toEqual(
      new Set(['midprice', 'spread']),
    );
    // …unless the oracle's last update is older than the range: then nothing in it set either field.
    expect(fieldsMaybeSetInRange({ firstSlot: slot, txs: [null] }, pool, ctx, { lastUpdateSlot: String(slot - 1) })).toEqual(new Set());
  });

  it('given a range not fetched (at-target), then the oracle update slot decides', () => {
    expect(fieldsMaybeSetInRange({ firstSlot: slot, txs: null }, pool, ctx, { lastUpdateSlot: String(slot - 1) })).toEqual(new Set());
    expect(fieldsMaybeSetInRange({ firstSlot: slot, txs: null }, pool, ctx, null)).toEqual(new Set(['midprice', 'spread']));
  });
});

describe('the oracle state at the start of the range', () => {
  const oracle = { quotingAuthority: 'Q', sequence: '9', midpriceQ32: '111', spreadFactorQ32: '222', lastUpdateSlot: '90' };

  it('given a range that sets neither field, then the read at C is the start — without any RPC call', async () => {
    const pool = poolOf(midOnly);
    const start = startFromSnapshot(snapshotOf(pool.config, oracle), pool, fieldsSetInRange([], pool, ctx));
    expect(start).toEqual({ midpriceQ32: '111', spreadFactorQ32: '222' });
    expect(await lookbackOracleState(noRpc, pool, { signature: 's', slot: 50 }, ctx, start)).toEqual(start);
  });

  it('given a range that sets only the midprice (a busy oracle, a spread set long ago), then the spread comes from the read at C and only the midprice is looked for', () => {
    const pool = poolOf(midOnly);
    expect(startFromSnapshot(snapshotOf(pool.config, oracle), pool, fieldsSetInRange([tx(midOnly)], pool, ctx))).toEqual({
      midpriceQ32: null,
      spreadFactorQ32: '222',
    });
  });

  it('walks back past signatures of the range first slot, and takes the newest setter before it', async () => {
    const pool = poolOf(midOnly);
    const slot = midOnly.result.slot;
    const listed = [
      { signature: 'same-slot', slot: slot + 1, err: null, blockTime: null }, // in the range's first slot: skipped
      { signature: midOnly.result.transaction.signatures[0], slot, err: null, blockTime: null },
    ];
    const asked: string[][] = [];
    const rpc = {
      getSignaturesForAddress: (_address: string, opts: { before?: string }) => Promise.resolve(opts.before === 'first' ? listed : []),
      getTransactions: (signatures: string[]) => {
        asked.push(signatures);
        return Promise.resolve(signatures.map(() => ({ ok: true as const, value: tx(midOnly) })));
      },
    } as unknown as SolanaRpc;
    const found = await lookbackOracleState(rpc, pool, { signature: 'first', slot: slot + 1 }, ctx, { midpriceQ32: null, spreadFactorQ32: '222' });
    expect(found).toEqual({ midpriceQ32: (factFromVector(midOnly.expected.events[0]) as OracleUpdateFact).midpriceQ32, spreadFactorQ32: '222' });
    expect(asked).toEqual([[midOnly.result.transaction.signatures[0]]]);
  });
});
