import { applyBlockPositions, mergeInChainOrder, slotAlignedChunks, slotsNeedingPositions, type ListedSignature } from './chain-order';

const s = (signature: string, slot: number, err: unknown = null): ListedSignature => ({ signature, slot, err, blockTime: 1000 + slot });
/** getSignaturesForAddress order: newest first. */
const newestFirst = (...xs: ListedSignature[]) => [...xs].reverse();

describe('chain order of the transactions to index', () => {
  it('given two program lists, when merged, then slots ascend and each list keeps its in-slot order', () => {
    const v1 = newestFirst(s('a1', 10), s('a2', 10), s('a3', 12));
    const v2 = newestFirst(s('b1', 10), s('b2', 11));
    expect(mergeInChainOrder([v1, v2]).map((r) => r.signature)).toEqual(['a1', 'a2', 'b1', 'b2', 'a3']);
  });

  it('given a transaction in both lists, then it appears once, between what precedes and follows it in each list', () => {
    const v1 = newestFirst(s('a1', 10), s('both', 10), s('a2', 10));
    const v2 = newestFirst(s('b1', 10), s('both', 10), s('b2', 10));
    const order = mergeInChainOrder([v1, v2]).map((r) => r.signature);
    expect(order).toHaveLength(5);
    expect(order.indexOf('a1')).toBeLessThan(order.indexOf('both'));
    expect(order.indexOf('b1')).toBeLessThan(order.indexOf('both'));
    expect(order.indexOf('both')).toBeLessThan(order.indexOf('a2'));
    expect(order.indexOf('both')).toBeLessThan(order.indexOf('b2'));
  });

  it('drops failed transactions: they changed nothing', () => {
    expect(mergeInChainOrder([newestFirst(s('ok', 1), s('failed', 1, { InstructionError: [2, { Custom: 8 }] }))]).map((r) => r.signature)).toEqual(['ok']);
  });

  it('given block positions, then txIndex is set and decides the order inside the slot', () => {
    const refs = mergeInChainOrder([newestFirst(s('x', 5), s('y', 5), s('z', 6))]);
    const placed = applyBlockPositions(refs, new Map([[5, ['vote', 'y', 'other', 'x']]]));
    expect(placed.map((r) => [r.signature, r.txIndex])).toEqual([
      ['y', 1],
      ['x', 3],
      ['z', null],
    ]);
  });

  it('asks for block positions only where the order inside a slot matters (mode multi)', () => {
    const refs = mergeInChainOrder([newestFirst(s('x', 5), s('y', 5), s('z', 6))]);
    expect(slotsNeedingPositions(refs, 'multi')).toEqual([5]);
    expect(slotsNeedingPositions(refs, 'all')).toEqual([5, 6]);
    expect(slotsNeedingPositions(refs, 'none')).toEqual([]);
  });

  it('cuts chunks on slot boundaries only (the cursor never lands inside a slot)', () => {
    const refs = mergeInChainOrder([newestFirst(s('a', 1), s('b', 1), s('c', 1), s('d', 2), s('e', 3), s('f', 3))]);
    expect(slotAlignedChunks(refs, 2).map((c) => c.map((r) => r.signature).join(''))).toEqual(['abc', 'def']);
    expect(slotAlignedChunks(refs, 100).map((c) => c.length)).toEqual([6]);
  });
});
