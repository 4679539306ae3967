import { vectorCase } from './testing/swap-transaction-vectors';
import { servedTransactionProblem, shapeProblemOf } from './transaction-shape';

/** One shape check for the decoder and the RPC source; the source also wants what decoding reads to be there. */

const served = () => vectorCase('d_v2_update_midprice_and_base_spread').result as unknown as Record<string, unknown> & { meta: Record<string, unknown> };

describe('a transaction as the RPC serves it', () => {
  it('given a complete transaction, or one served without metadata yet (its own failure), then nothing is wrong with it', () => {
    expect(servedTransactionProblem(served())).toBeNull();
    expect(servedTransactionProblem({ ...served(), meta: null })).toBeNull();
  });

  it('given a list decoding reads cut off, then the decoder would read it as empty but the source refuses it', () => {
    for (const field of ['preTokenBalances', 'postTokenBalances', 'innerInstructions']) {
      const tx = served();
      delete tx.meta[field];
      expect(shapeProblemOf(tx)).toBeNull();
      expect(servedTransactionProblem(tx)).toBe(`meta.${field} is missing`);
    }
    expect(servedTransactionProblem({ ...served(), version: 0, meta: { ...served().meta, loadedAddresses: null } })).toBe(
      'a v0 transaction without meta.loadedAddresses',
    );
  });

  it('given a value of the wrong shape, then both checks say the same thing', () => {
    const tx = served();
    tx.meta.postTokenBalances = [{ accountIndex: 1, mint: 'M', uiTokenAmount: { amount: 12 } }];
    expect(servedTransactionProblem(tx)).toBe(shapeProblemOf(tx));
    expect(servedTransactionProblem(tx)).toMatch(/uiTokenAmount\.amount/);
  });

  it('given a failed transaction, then its missing balances do not matter (nothing of it is decoded)', () => {
    const tx = served();
    tx.meta = { err: { InstructionError: [0, 'Custom'] } };
    expect(servedTransactionProblem(tx)).toBeNull();
  });
});
