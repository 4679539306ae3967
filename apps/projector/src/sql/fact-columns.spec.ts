import type { HadronEvent } from '@hadron/contracts';
import { chainPosition } from '@hadron/domain';
import { addr, swapExecuted, vaultBalancesChanged } from '../../test-support/events';
import { FACT_COLUMN_TYPES, FactColumns, factFields } from './fact-columns';
import { stagedText } from './staging';

describe('factFields', () => {
  const P = addr('fact-fields:p');
  const swap = { side: 'buy' as const, amountIn: 1000n, fee: 10n, amountOut: 600n, mid: null };
  const events: HadronEvent[] = [
    swapExecuted({ pool: P, slot: 7 }, swap),
    swapExecuted({ cluster: 'devnet', pool: P, slot: 2 ** 40, blockTime: null, txIndex: null, ixIndex: 3, innerIndex: 2 }, swap),
    { ...vaultBalancesChanged({ pool: P, slot: 9, ixIndex: null }, 1n, 2n), signature: null, txIndex: null },
    // What the contract never lets through, but COPY's escapes must still hold for.
    { ...swapExecuted({ pool: P, slot: 8 }, swap), id: 'a\tb\\c\nd\re', blockTime: -86_401 },
  ];

  it('writes the fact columns as the staging path writes them, in FACT_COLUMN_TYPES order, each with its tab', () => {
    for (const e of events) {
      const pos = chainPosition(e);
      const columns = new FactColumns();
      columns.push(e, pos);
      const staged = stagedText(columns.columns()).toString('utf8');
      expect(factFields(e, pos)).toBe(`${staged.slice(0, -1)}\t`);
      expect(factFields(e, pos).split('\t')).toHaveLength(FACT_COLUMN_TYPES.length + 1);
    }
  });
});
