import swapTransactionsJson from '../../../../test/fixtures/hadron/swap-transactions.json';
import { generateMarket } from '../simulator';
import type { SimulatedMarket } from '../market/market-generator';
import { FaultInjector, NO_FAULTS } from './faults';
import type { ClusterContext } from './rpc-methods';
import { answerRpc } from './rpc-server';

/** The JSON-RPC layer without HTTP: shapes, commitment, errors. */

let market: SimulatedMarket;
let ctx: ClusterContext;

beforeAll(() => {
  market = generateMarket({ cluster: 'devnet', seed: 'rpc-spec', pools: 5, historySeconds: 120, historyEndTimeMs: 1_750_000_000_000 });
  ctx = { name: 'devnet', market, faults: new FaultInjector(NO_FAULTS) };
});

const rpc = (method: string, params: unknown[] = []) => JSON.parse(answerRpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), ctx)!);

/** Key names and value types, recursively (arrays by the union of their elements). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) {
    const shapes = new Map(value.map((v) => [JSON.stringify(shape(v)), shape(v)]));
    return [...shapes.values()].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
    );
  return value === null ? 'null' : typeof value;
}

describe('getTransaction has exactly the shape of the golden getTransaction results', () => {
  const fixture = (name: string) => swapTransactionsJson.cases.find((c) => c.name === name)!.result as Record<string, unknown>;
  const served = (predicate: (tx: { version: 'legacy' | 0; metaJson: string }) => boolean) => {
    for (const slot of market.ledger.blockSlotsBetween(0, market.ledger.head)) {
      const tx = market.ledger.block(slot)!.transactions.find((t) => t.err === null && predicate(t));
      if (tx) return rpc('getTransaction', [tx.signature, { maxSupportedTransactionVersion: 0 }]).result as Record<string, unknown>;
    }
    throw new Error('no such transaction');
  };
  // Token balances and instruction lists vary in length, not in shape; compare the envelope and
  // one element of each list.
  const skeleton = (result: Record<string, unknown>) => {
    const meta = result.meta as Record<string, unknown>;
    const message = (result.transaction as { message: Record<string, unknown> }).message;
    return {
      top: Object.keys(result).sort(),
      meta: Object.keys(meta).sort(),
      message: Object.keys(message).sort(),
      instruction: shape((message.instructions as unknown[]).at(-1)),
      balance: shape((meta.postTokenBalances as unknown[])[0]),
      inner: shape((meta.innerInstructions as { instructions: unknown[] }[])[0]?.instructions[0]),
    };
  };

  it('for a legacy swap (fixture a)', () => {
    const ours = served((t) => t.version === 'legacy' && t.metaJson.includes('Instruction: Transfer'));
    expect(skeleton(ours)).toEqual(skeleton(fixture('a_v1_sell_x_legacy_with_spread_config')));
    expect(ours.version).toBe('legacy');
  });

  it('for a v0 swap with a lookup table (fixture b)', () => {
    const ours = served((t) => t.version === 0);
    expect(skeleton(ours)).toEqual(skeleton(fixture('b_v2_buy_x_v0_lookup_table')));
  });
});

describe('commitment and errors', () => {
  it('rejects `processed` where the RPC does, and honours minContextSlot', () => {
    const sig = market.groundTruth().swaps[0].signature;
    expect(rpc('getTransaction', [sig, { commitment: 'processed', maxSupportedTransactionVersion: 0 }]).error.code).toBe(-32602);
    expect(rpc('getSignaturesForAddress', [market.groundTruth().pools[0].config, { commitment: 'processed' }]).error.code).toBe(-32602);
    expect(rpc('getAccountInfo', [market.groundTruth().pools[0].config, { minContextSlot: market.ledger.head + 1 }]).error.code).toBe(-32016);
    expect(rpc('getSlot', [{ commitment: 'processed' }]).result).toBe(market.ledger.head);
  });

  it('a lagging signature index lists nothing of the newest slots and refuses minContextSlot beyond itself with -32016, until it catches up', () => {
    const faults = new FaultInjector({ ...NO_FAULTS, signatureIndexLagSlots: 5, signatureIndexCatchUpMs: 3_600_000 });
    const lagging: ClusterContext = { ...ctx, faults };
    const on = (c: ClusterContext, params: unknown[]) =>
      JSON.parse(answerRpc(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params }), c)!);
    const program = market.groundTruth().programs.v1;
    const head = market.ledger.head;
    const all = on(ctx, [program, { limit: 1000 }]).result as { slot: number }[];
    expect(all.some((s) => s.slot > head - 5)).toBe(true);
    expect(on(lagging, [program, { limit: 1000 }]).result).toEqual(all.filter((s) => s.slot <= head - 5));
    expect(on(lagging, [program, { limit: 1000, minContextSlot: head }]).error).toEqual({
      code: -32016,
      message: 'Minimum context slot has not been reached',
      data: { contextSlot: head - 5 },
    });
    expect(faults.signatureIndexLagged).toBe(2);
    faults.configure({ ...faults.current, signatureIndexContext: 'bank' }); // one node: the bank passes the check, its index still lags
    expect(on(lagging, [program, { limit: 1000, minContextSlot: head }]).result).toEqual(all.filter((s) => s.slot <= head - 5));
    faults.configure({ ...faults.current, signatureIndexCatchUpMs: 0 }); // the head stood still long enough
    expect(on(lagging, [program, { limit: 1000, minContextSlot: head }]).result).toEqual(all);
  });

  it('live slots are confirmed and finalized only after their lag', () => {
    const m = generateMarket({ cluster: 'devnet', seed: 'lags', pools: 2, historySeconds: 10, historyEndTimeMs: 1_750_000_000_000 });
    m.ledger.setCommitmentLags({ confirmed: 1, finalized: 32 });
    const end = m.ledger.head;
    for (let i = 0; i < 40; i++) m.produceSlot();
    expect([m.ledger.visibleSlot('processed'), m.ledger.visibleSlot('confirmed'), m.ledger.visibleSlot('finalized')]).toEqual([end + 40, end + 39, end + 8]);
    expect(m.ledger.confirmationStatusOf(end + 39)).toBe('confirmed');
    expect(m.ledger.confirmationStatusOf(end)).toBe('finalized');
  });

  it('block errors: skipped slots -32007, future slots -32004, before history -32009', () => {
    let skipped = market.ledger.clock.firstSlot;
    while (market.ledger.block(skipped)) skipped++;
    expect(rpc('getBlock', [skipped, { maxSupportedTransactionVersion: 0 }]).error.code).toBe(-32007);
    expect(rpc('getBlockTime', [market.ledger.head + 5]).error.code).toBe(-32004);
    expect(rpc('getBlockTime', [1]).error.code).toBe(-32009);
    const blocks = rpc('getBlocks', [market.ledger.clock.firstSlot, market.ledger.clock.firstSlot + 20]).result as number[];
    expect(blocks).not.toContain(skipped);
  });

  it('a batch answers each call in order; an empty batch is an invalid request', () => {
    const out = JSON.parse(answerRpc('[{"jsonrpc":"2.0","id":"a","method":"getHealth"},{"jsonrpc":"2.0","id":"b","method":"nope"},{"id":"c"}]', ctx)!);
    expect(out).toEqual([
      { jsonrpc: '2.0', result: 'ok', id: 'a' },
      { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 'b' },
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid request' }, id: 'c' },
    ]);
    expect(JSON.parse(answerRpc('[]', ctx)!).error.code).toBe(-32600);
  });

  it('jsonParsed renders token transfers and ATA creation like the RPC', () => {
    const withAta = (() => {
      for (const slot of market.ledger.blockSlotsBetween(0, market.ledger.head)) {
        const tx = market.ledger.block(slot)!.transactions.find((t) => t.metaJson.includes('CreateIdempotent') && t.err === null);
        if (tx) return tx;
      }
      throw new Error('no ATA creation generated');
    })();
    const result = rpc('getTransaction', [withAta.signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]).result;
    const programs = (result.transaction.message.instructions as { program?: string; parsed?: { type: string } }[]).map((ix) => ix.parsed?.type ?? 'partial');
    expect(programs).toContain('createIdempotent');
    const inner = (result.meta.innerInstructions as { instructions: { parsed?: { type: string } }[] }[]).flatMap((g) =>
      g.instructions.map((ix) => ix.parsed?.type),
    );
    expect(inner).toEqual(expect.arrayContaining(['getAccountDataSize', 'createAccount', 'initializeImmutableOwner', 'initializeAccount3', 'transfer']));
    expect(result.transaction.message.accountKeys[0]).toEqual({ pubkey: expect.any(String), signer: true, source: expect.any(String), writable: true });
  });
});
