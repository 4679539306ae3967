import { decodeContextOf } from '../decode';
import type { ItemResult, WireTransaction } from '../source/solana-rpc';
import { deriveEvents, lateGaps, programsListing, type DeriveContext } from './derive-events';
import { EventBuilder } from './event-builder';

const failed = (message: string): ItemResult<WireTransaction> =>
  ({ ok: false, failure: Object.assign(new Error(message), { details: {} }), attempts: 3 }) as never;
const ref = (signature: string, slot: number) => ({ signature, slot, blockTime: null, txIndex: null });
const listed = new Map([
  ['A', [{ slot: 7, signature: 'x' }]],
  [
    'B',
    [
      { slot: 7, signature: 'x' },
      { slot: 6, signature: 'y' },
    ],
  ],
]);

function context(over: Partial<DeriveContext> = {}): DeriveContext {
  const pools = new Map();
  return { decode: decodeContextOf(new Map()), pools, builder: new EventBuilder('devnet', pools), admits: () => true, followSplitWrites: true, ...over };
}

describe('deriveEvents (pure decode → build)', () => {
  it.each([
    ['a transaction not fetched after every retry', ref('x', 7), failed('boom'), 'boom (after 3 attempts)', ['A', 'B']],
    ['a transaction missing from the fetch', ref('y', 6), undefined, 'not fetched', ['B']],
  ])('given %s, when the chunk is derived, then it becomes a gap row of the programs that listed it', (_given, r, res, error, programs) => {
    const txs = new Map(res ? [[r.signature, res]] : []);
    const out = deriveEvents({ refs: [r], txs, problems: [] }, context({ listed }));
    expect(out.events).toEqual([]);
    expect(out.transactions).toBe(0);
    expect(out.lastSignature).toBe(r.signature);
    expect(out.gaps).toEqual([{ signature: r.signature, slot: r.slot, txIndex: null, attempts: 0, lastError: error, state: {}, programs }]);
  });

  it('given problems of the fetch (blocks never served), then they are the chunk problems', () => {
    const problem = { code: 'positions_unavailable', message: 'm', eventId: 'slot:1:positions', poolConfig: null, slot: 1 };
    expect(deriveEvents({ refs: [], txs: new Map(), problems: [problem] }, context()).problems).toEqual([problem]);
  });

  it.each([
    ['a signature both programs listed', 'x', ['A', 'B']],
    ['a signature one program listed', 'y', ['B']],
    ['a signature nobody listed', 'z', []],
  ])('given %s, then its gap belongs to the listed programs', (_given, signature, then) => {
    expect(programsListing(listed, signature)).toEqual(then);
  });

  it('given transactions listed late, then they become gap rows with the state at the cursor', () => {
    const rows = lateGaps([{ ...ref('l', 3), programs: ['A'] }], new Map());
    expect(rows).toEqual([expect.objectContaining({ signature: 'l', slot: 3, txIndex: null, attempts: 0, state: {}, programs: ['A'] })]);
  });
});
