import { unpackMint } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import {
  decodeBase58,
  decodeConfigAccount,
  decodeFeeConfigAccount,
  decodeFeeSplit,
  decodeInstructionBase58,
  decodeOracleAccount,
  derivePoolAddresses,
  poolStateName,
} from '@hadron/domain';
import { createHash } from 'node:crypto';
import type { StoredTx } from '../ledger/ledger';
import { isTokenProgramId as isTokenProgram, MINT_SIZE, tokenAccountAmount, tokenAccountMint, tokenAccountRent, tokenAccountSize } from '../spl/spl-accounts';
import { NATIVE_MINT, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from '../spl/well-known';
import { generateMarket } from '../simulator';
import { POOL_ROTATION, QUOTES, templateMint } from './catalog';
import type { SimulatedMarket } from './market-generator';

/**
 * Given a small generated market, every transaction it serves must be internally consistent (the
 * balances agree with the inner transfers, the accounts with the last transaction) and agree with
 * the ground truth — otherwise a round-trip test against it would prove nothing.
 */

const OPTIONS = { cluster: 'mainnet-beta', seed: 'spec', pools: 8, historySeconds: 240, historyEndTimeMs: 1_750_000_000_000 };

interface Ix {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}
interface Balance {
  accountIndex: number;
  mint: string;
  owner: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}
interface Parsed {
  tx: StoredTx;
  keys: string[];
  message: { accountKeys: string[]; instructions: Ix[]; header: { numRequiredSignatures: number } };
  signatures: string[];
  meta: {
    err: unknown;
    fee: number;
    innerInstructions: { index: number; instructions: Ix[] }[];
    loadedAddresses: { writable: string[]; readonly: string[] };
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: Balance[];
    postTokenBalances: Balance[];
  };
}

let market: SimulatedMarket;
let txs: Parsed[];

beforeAll(() => {
  market = generateMarket(OPTIONS);
  txs = allTransactions(market);
});

function allTransactions(m: SimulatedMarket): Parsed[] {
  const out: Parsed[] = [];
  for (const slot of m.ledger.blockSlotsBetween(0, m.ledger.head)) {
    for (const tx of m.ledger.block(slot)!.transactions) {
      const transaction = JSON.parse(tx.transactionJson);
      const meta = JSON.parse(tx.metaJson);
      out.push({
        tx,
        keys: [...transaction.message.accountKeys, ...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly],
        message: transaction.message,
        signatures: transaction.signatures,
        meta,
      });
    }
  }
  return out;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('determinism', () => {
  it('the same seed gives byte-identical ground truth and transactions', () => {
    const again = generateMarket(OPTIONS);
    expect(sha(JSON.stringify(again.groundTruth()))).toBe(sha(JSON.stringify(market.groundTruth())));
    const bytes = (m: SimulatedMarket) =>
      allTransactions(m)
        .map((p) => p.tx.metaJson + p.tx.transactionJson)
        .join('\n');
    expect(sha(bytes(again))).toBe(sha(bytes(market)));
  });

  it('another seed or cluster gives another market', () => {
    const other = generateMarket({ ...OPTIONS, seed: 'spec-2', historySeconds: 30 });
    const devnet = generateMarket({ ...OPTIONS, cluster: 'devnet', historySeconds: 30 });
    const pools = (m: SimulatedMarket) => m.groundTruth().pools.map((p) => p.config);
    expect(pools(other)).not.toEqual(pools(market));
    expect(pools(devnet)).not.toEqual(pools(market));
    expect(pools(devnet)).not.toEqual(pools(other));
  });

  it('the genesis hash (a base58 32-byte hash) is the same for the same chain, and another for a chain generated otherwise', () => {
    const genesis = (m: SimulatedMarket) => m.ledger.genesisHash;
    expect(bs58.decode(genesis(market))).toHaveLength(32);
    expect(genesis(generateMarket(OPTIONS))).toBe(genesis(market));
    // Another seed, cluster, history end (the same seed started again later: every block re-timed) or rate: another chain.
    const others = [
      generateMarket({ ...OPTIONS, seed: 'spec-2', historySeconds: 30 }),
      generateMarket({ ...OPTIONS, cluster: 'devnet', historySeconds: 30 }),
      generateMarket({ ...OPTIONS, historyEndTimeMs: OPTIONS.historyEndTimeMs + 60_000 }),
      generateMarket({ ...OPTIONS, swapsPerSecond: 1 }),
    ].map(genesis);
    expect(new Set([genesis(market), ...others]).size).toBe(5);
  });
});

describe('coverage: every kind of fact the indexer must handle is generated', () => {
  it('has swaps both ways, direct and by CPI, legacy and v0, two on one pool in a tx, fee and no fee', () => {
    const swaps = market.groundTruth().swaps;
    const kinds = new Set(swaps.map((s) => `${s.side}/${s.route}/${s.tx_version}`));
    // Every combination of side × route × message version.
    expect([...kinds].sort()).toEqual([
      'buy/cpi/0',
      'buy/cpi/legacy',
      'buy/direct/0',
      'buy/direct/legacy',
      'sell/cpi/0',
      'sell/cpi/legacy',
      'sell/direct/0',
      'sell/direct/legacy',
    ]);
    const perTx = new Map<string, number>();
    for (const s of swaps) perTx.set(s.signature, (perTx.get(s.signature) ?? 0) + 1);
    expect([...perTx.values()].some((n) => n === 2)).toBe(true);
    expect(swaps.some((s) => s.protocol_fee_raw === '0')).toBe(true);
    expect(swaps.some((s) => s.protocol_fee_raw !== '0')).toBe(true);
    expect(swaps.some((s) => s.fee_split !== null)).toBe(true);
    expect(swaps.some((s) => s.fee_split === null)).toBe(true);
    expect(swaps.some((s) => s.instruction_location.top_level_index === 0)).toBe(true);
  });

  it('has oracle updates of tags 5, 9 and 10, failed transactions, liquidity, state changes and split changes', () => {
    const gt = market.groundTruth();
    expect(new Set(gt.oracle_updates.map((u) => u.tag))).toEqual(new Set([5, 9, 10]));
    expect(new Set(gt.failed_transactions.map((f) => f.reason))).toEqual(new Set(['slippage', 'pool_not_active', 'stale_sequence']));
    expect(new Set(gt.liquidity.map((l) => l.kind))).toEqual(new Set(['deposit', 'withdraw']));
    expect(new Set(gt.pools.flatMap((p) => p.state_history.map((s) => s.state_name)))).toEqual(new Set(['Initialized', 'Paused', 'RejectSwaps', 'Closed']));
    expect(gt.fee_split_changes.filter((c) => c.signature !== null).length).toBeGreaterThanOrEqual(4);
    expect(new Set(gt.pools.map((p) => p.program_version))).toEqual(new Set(['v1', 'v2']));
    expect(new Set(gt.tokens.map((t) => t.decimals))).toEqual(new Set([0, 5, 6, 8, 9]));
  });

  it('creates the last pool mid-history by an Initialize transaction, with no activity before it', () => {
    const gt = market.groundTruth();
    const late = gt.pools.find((p) => p.created_signature !== null)!;
    expect(late.config).toBe(gt.pools[gt.pools.length - 1].config);
    expect(market.ledger.getAccount(late.config, late.created_slot - 1)).toBeNull();
    expect(market.ledger.getAccount(late.vault_x, late.created_slot - 1)).toBeNull();
    const init = txs.find((p) => p.tx.signature === late.created_signature)!;
    expect(decodeInstructionBase58(init.message.instructions.at(-1)!.data)).toEqual({ kind: 'other', tag: 0 });
    const events = [...gt.swaps.filter((e) => e.pool_config === late.config), ...gt.oracle_updates.filter((e) => e.pool_config_via_registry === late.config)];
    expect(events.length).toBeGreaterThan(0);
    expect(Math.min(...events.map((e) => e.slot))).toBeGreaterThanOrEqual(late.created_slot);
    expect(gt.liquidity.find((l) => l.pool_config === late.config)).toMatchObject({ kind: 'deposit', slot: late.created_slot });
  });

  it('the default market (npm run demo, start:simulator) has a pool of every catalog template, Token-2022 and 0-decimal tokens, every kind of token metadata and a rename included', () => {
    const defaults = generateMarket({ cluster: 'devnet', seed: 'defaults', historySeconds: 20, historyEndTimeMs: OPTIONS.historyEndTimeMs });
    const gt = defaults.groundTruth();
    const templates = (list: readonly { program: string; base: string; quote: string }[]) => list.map((t) => `${t.program} ${t.base}/${t.quote}`).sort();
    expect(templates(gt.pools.map((p) => ({ program: p.program_version, base: p.mint_x, quote: p.mint_y })))).toEqual(
      templates(
        POOL_ROTATION.map((t) => ({ program: t.program, base: templateMint(t.base, defaults.keys), quote: templateMint(QUOTES[t.quote], defaults.keys) })),
      ),
    );
    const tokens = new Map(gt.tokens.map((t) => [t.mint, t]));
    for (const p of gt.pools) expect([p.symbol_x, p.symbol_y]).toEqual([tokens.get(p.mint_x)!.symbol, tokens.get(p.mint_y)!.symbol]);
    expect(gt.tokens.some((t) => t.token_program === TOKEN_2022_PROGRAM)).toBe(true);
    expect(gt.tokens.some((t) => t.decimals === 0)).toBe(true);
    expect(new Set(gt.tokens.map((t) => t.metadata_source))).toEqual(new Set(['metaplex', 'token-2022', 'pointer', 'none']));
    // The rename lands at half the schedule span (here the history).
    expect(gt.tokens.filter((t) => t.renames.length > 0).map((t) => [t.symbol, t.renames.length])).toEqual([['HDRN2', 1]]);
  });

  it('creates a new pool in live mode when asked', () => {
    const m = generateMarket({ ...OPTIONS, pools: 3, historySeconds: 10, newPoolAfterSeconds: 2 });
    expect(m.groundTruth().pools).toHaveLength(3);
    for (let i = 0; i < 10; i++) m.produceSlot();
    const pools = m.groundTruth().pools;
    expect(pools).toHaveLength(4);
    expect(pools[3].created_slot).toBeGreaterThan(m.lastHistorySlot);
    expect(m.ledger.getAccount(pools[3].config)).not.toBeNull();
  });

  it('has sells whose is_x byte is not 1 (any non-zero sells X), and buys only with 0', () => {
    const swaps = market.groundTruth().swaps;
    expect(new Set(swaps.filter((s) => s.side === 'sell').map((s) => s.is_x))).toEqual(new Set([1, 2, 7, 128, 255]));
    expect(new Set(swaps.filter((s) => s.side === 'buy').map((s) => s.is_x))).toEqual(new Set([0]));
  });

  it('has oracle updates with trailing bytes and oracle updates made by CPI (a keeper program)', () => {
    const gt = market.groundTruth();
    const bySig = new Map(txs.map((p) => [p.tx.signature, p]));
    const dataOf = (u: (typeof gt.oracle_updates)[number]) => {
      const p = bySig.get(u.signature)!;
      const loc = u.instruction_location;
      return loc.inner_index === null
        ? p.message.instructions[loc.top_level_index]
        : p.meta.innerInstructions.find((g) => g.index === loc.top_level_index)!.instructions[loc.inner_index];
    };
    const exactLength = { 5: 17, 9: 17, 10: 25 } as const;
    const padded = gt.oracle_updates.filter((u) => decodeBase58(dataOf(u).data).length > exactLength[u.tag]);
    expect(padded.length).toBeGreaterThan(0);
    const viaCpi = gt.oracle_updates.filter((u) => u.instruction_location.inner_index !== null);
    expect(viaCpi.length).toBeGreaterThan(0);
    for (const u of viaCpi) {
      const p = bySig.get(u.signature)!;
      expect(p.keys[p.message.instructions[u.instruction_location.top_level_index].programIdIndex]).toBe(gt.programs.keeper);
      expect(dataOf(u).stackHeight).toBe(2);
    }
    expect(new Set([...padded, ...viaCpi].map((u) => u.tag)).size).toBeGreaterThan(1);
  });

  it('has an oracle update and a swap on the same pool in one transaction, in both orders, the swap priced at the midprice then in effect', () => {
    const gt = market.groundTruth();
    const orders = new Set<string>();
    for (const u of gt.oracle_updates) {
      const swap = gt.swaps.find((s) => s.signature === u.signature && s.pool_config === u.pool_config_via_registry);
      if (!swap) continue;
      const updateFirst = u.instruction_location.top_level_index < swap.instruction_location.top_level_index;
      orders.add(updateFirst ? 'update-then-swap' : 'swap-then-update');
      // Priced at the update's midprice when it came first; at the one before it otherwise.
      if (updateFirst && u.midprice_q32 !== null) expect(swap.midprice_q32).toBe(u.midprice_q32);
      if (!updateFirst && u.midprice_q32 !== null && u.midprice_q32 !== swap.midprice_q32) expect(swap.midprice_q32).not.toBe(u.midprice_q32);
    }
    expect([...orders].sort()).toEqual(['swap-then-update', 'update-then-swap']);
  });

  it('has a direct and a CPI swap on the same pool in one transaction', () => {
    const bySig = new Map<string, { pool: string; route: string }[]>();
    for (const s of market.groundTruth().swaps) bySig.set(s.signature, [...(bySig.get(s.signature) ?? []), { pool: s.pool_config, route: s.route }]);
    expect(
      [...bySig.values()].some((list) => list.length === 2 && list[0].pool === list[1].pool && list[0].route === 'direct' && list[1].route === 'cpi'),
    ).toBe(true);
  });

  it('has routed swaps whose router pays itself with TransferChecked (Hadron itself only uses Transfer)', () => {
    const gt = market.groundTruth();
    const swapTxs = new Set(gt.swaps.map((s) => s.signature));
    let routerChecked = 0;
    for (const p of txs.filter((t) => swapTxs.has(t.tx.signature))) {
      for (const group of p.meta.innerInstructions) {
        for (const [j, ix] of group.instructions.entries()) {
          if (!isTokenProgram(p.keys[ix.programIdIndex]) || decodeBase58(ix.data)[0] !== 12) continue;
          routerChecked++;
          // Never one of a swap's own legs: a router-level instruction, not under a Hadron swap.
          expect(p.keys[p.message.instructions[group.index].programIdIndex]).toBe(gt.programs.router);
          expect(ix.stackHeight === null || ix.stackHeight === 2).toBe(true);
          expect(j).toBe(group.instructions.length - 1);
        }
      }
    }
    expect(routerChecked).toBeGreaterThan(0);
  });

  it('has routed swaps served without stackHeight (older transactions), each the only swap of its pool in the transaction', () => {
    const gt = market.groundTruth();
    const bySig = new Map(txs.map((p) => [p.tx.signature, p]));
    const legacyCpi = gt.swaps.filter(
      (s) => s.route === 'cpi' && bySig.get(s.signature)!.meta.innerInstructions.every((g) => g.instructions.every((ix) => ix.stackHeight === null)),
    );
    expect(legacyCpi.length).toBeGreaterThan(0);
    for (const s of legacyCpi) expect(gt.swaps.filter((o) => o.signature === s.signature && o.pool_config === s.pool_config)).toHaveLength(1);
  });

  it('has several oracle updates of one pool within one second', () => {
    const perSecond = new Map<string, number>();
    for (const u of market.groundTruth().oracle_updates) perSecond.set(`${u.oracle}/${u.block_time}`, (perSecond.get(`${u.oracle}/${u.block_time}`) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeGreaterThanOrEqual(3);
  });
});

describe('transactions are internally consistent', () => {
  it('token balance deltas equal the inner (and top-level) SPL transfers, for every transaction', () => {
    const bad: string[] = [];
    for (const p of txs) {
      const pre = new Map(p.meta.preTokenBalances.map((b) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]));
      const post = new Map(p.meta.postTokenBalances.map((b) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]));
      const expected = new Map<number, bigint>();
      const all = [...p.message.instructions, ...p.meta.innerInstructions.flatMap((g) => g.instructions)];
      for (const ix of all) {
        const data = decodeBase58(ix.data);
        // Transfer [source, destination, …]; TransferChecked [source, mint, destination, …].
        if (!isTokenProgram(p.keys[ix.programIdIndex]) || (data[0] !== 3 && data[0] !== 12)) continue;
        const amount = new DataView(data.buffer, data.byteOffset).getBigUint64(1, true);
        const destination = data[0] === 3 ? ix.accounts[1] : ix.accounts[2];
        expected.set(ix.accounts[0], (expected.get(ix.accounts[0]) ?? 0n) - amount);
        expected.set(destination, (expected.get(destination) ?? 0n) + amount);
      }
      const indexes = new Set([...pre.keys(), ...post.keys(), ...expected.keys()]);
      for (const i of indexes) {
        const delta = (post.get(i) ?? 0n) - (pre.get(i) ?? 0n);
        if (delta !== (expected.get(i) ?? 0n)) bad.push(`${p.tx.signature}: account ${i} moved ${delta}, transfers say ${expected.get(i) ?? 0n}`);
      }
      if (p.meta.err !== null && p.meta.innerInstructions.length > 0) bad.push(`${p.tx.signature}: failed with inner instructions`);
    }
    expect(bad).toEqual([]);
    expect(txs.filter((p) => p.meta.err === null && p.meta.innerInstructions.length > 0).length).toBeGreaterThan(100);
  });

  it('lamports: the fee is Σpre − Σpost, paid by the first signer; WSOL token accounts hold rent + amount', () => {
    const bad: string[] = [];
    const rent = BigInt(tokenAccountRent(SPL_TOKEN_PROGRAM));
    for (const p of txs) {
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      if (sum(p.meta.preBalances) - sum(p.meta.postBalances) !== p.meta.fee) bad.push(`${p.tx.signature}: lamports do not add up to the fee`);
      if (p.meta.preBalances.length !== p.keys.length || p.meta.postBalances.length !== p.keys.length) bad.push(`${p.tx.signature}: balance count`);
      if (p.signatures.length !== p.message.header.numRequiredSignatures) bad.push(`${p.tx.signature}: signature count`);
      for (const b of p.meta.postTokenBalances) {
        if (b.mint === NATIVE_MINT && BigInt(p.meta.postBalances[b.accountIndex]) !== rent + BigInt(b.uiTokenAmount.amount))
          bad.push(`${p.tx.signature}: WSOL lamports`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('indexes stay inside the key list and only v0 messages load addresses', () => {
    const bad: string[] = [];
    for (const p of txs) {
      const all = [...p.message.instructions, ...p.meta.innerInstructions.flatMap((g) => g.instructions)];
      for (const ix of all) for (const i of [ix.programIdIndex, ...ix.accounts]) if (i >= p.keys.length) bad.push(`${p.tx.signature}: index ${i}`);
      const loaded = p.meta.loadedAddresses.writable.length + p.meta.loadedAddresses.readonly.length;
      if (p.tx.version === 'legacy' && loaded > 0) bad.push(`${p.tx.signature}: legacy with loaded addresses`);
      if (new Set(p.keys).size !== p.keys.length) bad.push(`${p.tx.signature}: a key listed twice`);
    }
    expect(bad).toEqual([]);
  });

  it('the account data of every vault equals the postTokenBalances of the last transaction touching it', () => {
    const last = new Map<string, string>();
    for (const p of txs) for (const b of p.meta.postTokenBalances) last.set(p.keys[b.accountIndex], b.uiTokenAmount.amount);
    for (const pool of market.groundTruth().pools) {
      for (const vault of [pool.vault_x, pool.vault_y]) {
        const state = market.ledger.getAccount(vault)!;
        expect(last.get(vault)).toBe(tokenAccountAmount(state.data).toString());
      }
    }
  });
});

describe('accounts agree with the ground truth', () => {
  it('each oracle account equals its last update, and every version the replayed updates', () => {
    const gt = market.groundTruth();
    for (const pool of gt.pools) {
      let state = { ...pool.initial_oracle };
      const bySlot = new Map<number, typeof state>();
      for (const u of gt.oracle_updates.filter((x) => x.oracle === pool.oracle)) {
        state = {
          sequence: u.sequence,
          midprice_q32: u.midprice_q32 ?? state.midprice_q32,
          spread_factor_q32: u.spread_factor_q32 ?? state.spread_factor_q32,
          last_update_slot: String(u.slot),
        };
        bySlot.set(u.slot, state);
      }
      const decoded = decodeOracleAccount(market.ledger.getAccount(pool.oracle)!.data);
      expect({ ...decoded, version: undefined, size: undefined }).toEqual({
        ...state,
        quoting_authority: pool.quoting_authority,
        version: undefined,
        size: undefined,
      });
      for (const version of market.ledger.accountHistory(pool.oracle).slice(1)) {
        const d = decodeOracleAccount(version.state!.data);
        expect({ sequence: d.sequence, midprice_q32: d.midprice_q32, spread_factor_q32: d.spread_factor_q32, last_update_slot: d.last_update_slot }).toEqual(
          bySlot.get(version.slot),
        );
      }
    }
  });

  it('config accounts decode to the pool, its PDAs and its state history', () => {
    for (const pool of market.groundTruth().pools) {
      const config = decodeConfigAccount(market.ledger.getAccount(pool.config)!.data);
      expect(config.version).toBe(pool.program_version);
      expect(config.size).toBe(pool.program_version === 'v1' ? 248 : 724);
      expect([config.mint_x, config.mint_y, config.authority, config.seed]).toEqual([pool.mint_x, pool.mint_y, pool.authority, pool.seed]);
      expect(poolStateName(config.state)).toBe(pool.state_history[pool.state_history.length - 1].state_name);
      expect(config.has_pool_fee).toBe(pool.has_pool_fee);
      const pdas = derivePoolAddresses(pool.program, BigInt(pool.seed), pool.mint_x, pool.mint_y, pool.token_program_x, pool.token_program_y);
      expect([pdas.config.address, pdas.midprice_oracle.address, pdas.vault_x.address, pdas.vault_y.address]).toEqual([
        pool.config,
        pool.oracle,
        pool.vault_x,
        pool.vault_y,
      ]);
      for (const change of pool.state_history.slice(1)) {
        const atSlot = decodeConfigAccount(market.ledger.getAccount(pool.config, change.slot)!.data);
        expect(atSlot.state).toBe(change.state);
      }
    }
  });

  it('fee config accounts decode to the split in effect at every change', () => {
    const gt = market.groundTruth();
    for (const change of gt.fee_split_changes) {
      const data = market.ledger.getAccount(change.fee_config, change.slot)!.data;
      expect(decodeFeeConfigAccount(data).fee_ppm).toBe(change.fee_ppm);
      expect(decodeFeeSplit(data)).toEqual(change.recipients);
    }
    for (const swap of gt.swaps) {
      const fee = decodeFeeConfigAccount(market.ledger.getAccount(swap.fee_config, swap.slot)!.data);
      expect(swap.protocol_fee_raw).toBe(((BigInt(swap.amount_in) * BigInt(fee.fee_ppm)) / 1_000_000n).toString());
      expect(fee.fee_ppm).toBe(swap.fee_ppm);
    }
  });

  it('the pricing is on the net input at the oracle in effect', () => {
    for (const s of market.groundTruth().swaps) {
      const net = BigInt(s.amount_in_to_vault);
      const mid = BigInt(s.midprice_q32);
      const spread = BigInt(s.spread_factor_q32);
      const out = s.is_x ? (net * mid * spread) >> 64n : (net * spread) / mid;
      expect(s.amount_out).toBe(out.toString());
    }
  });

  it('swap instructions carry the ground-truth arguments, and failed transactions fail', () => {
    const gt = market.groundTruth();
    const bySig = new Map(txs.map((p) => [p.tx.signature, p]));
    for (const s of gt.swaps) {
      const p = bySig.get(s.signature)!;
      expect(p.meta.err).toBeNull();
      const loc = s.instruction_location;
      const ix =
        loc.inner_index === null
          ? p.message.instructions[loc.top_level_index]
          : p.meta.innerInstructions.find((g) => g.index === loc.top_level_index)!.instructions[loc.inner_index];
      expect(p.keys[ix.programIdIndex]).toBe(s.program);
      expect(decodeInstructionBase58(ix.data)).toEqual({ tag: 3, instruction: 'Swap', is_x: s.is_x, ...s.instruction_args });
      expect(p.keys[ix.accounts[2]]).toBe(s.pool_config);
    }
    for (const f of gt.failed_transactions) expect(bySig.get(f.signature)!.meta.err).toEqual(f.err);
    const ids = [...gt.swaps, ...gt.oracle_updates].map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('mints are SPL Token (82 bytes) or Token-2022 mints with the ground-truth decimals; token accounts name their mint (name and symbol: token-metadata.spec)', () => {
    const gt = market.groundTruth();
    for (const t of gt.tokens) {
      const mint = market.ledger.getAccount(t.mint)!;
      expect(mint.owner).toBe(t.token_program);
      if (t.token_program === SPL_TOKEN_PROGRAM) expect(mint.data.length).toBe(MINT_SIZE);
      const program = new PublicKey(t.token_program);
      expect(
        unpackMint(new PublicKey(t.mint), { data: Buffer.from(mint.data), owner: program, lamports: mint.lamports, executable: false }, program).decimals,
      ).toBe(t.decimals);
    }
    for (const pool of gt.pools) {
      for (const [vault, mint, program] of [
        [pool.vault_x, pool.mint_x, pool.token_program_x],
        [pool.vault_y, pool.mint_y, pool.token_program_y],
      ]) {
        const data = market.ledger.getAccount(vault)!.data;
        expect([tokenAccountMint(data), data.length]).toEqual([mint, tokenAccountSize(program)]);
      }
    }
  });
});
