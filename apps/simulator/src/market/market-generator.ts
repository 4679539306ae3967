import { createHash } from 'node:crypto';
import { encodeBase58 } from '@hadron/domain';
import { KeyBook } from '../ledger/keys';
import { Ledger } from '../ledger/ledger';
import { Rng } from '../ledger/prng';
import { HADRON_PROGRAM_V1, HADRON_PROGRAM_V2 } from '../spl/well-known';
import { ACTIVITY_FACTOR } from './catalog';
import { genesis } from './genesis';
import type { GroundTruth } from './ground-truth';
import { liquidity } from './liquidity';
import { SHAPE_RATES, type MarketContext } from './market-context';
import type { MarketOptions } from './market-options';
import { swap, swapWithOracleUpdate } from './order-flow';
import type { PoolRuntime } from './pool-runtime';
import { oracleUpdate } from './price-path';
import { changeFeeSplit, planLifecycle, setPoolState } from './scenario';

export { DEFAULT_MARKET_OPTIONS, type MarketOptions } from './market-options';
export { readonly, signer, writable } from './market-context';

/**
 * One simulated cluster: genesis accounts, then slot after slot of Hadron activity written into a
 * Ledger, with the ground truth recorded as it happens. Deterministic: the same options give the
 * same bytes (every random draw comes from streams seeded by `seed`, in a fixed order).
 *
 * The concerns live beside it, each a set of functions over the market's state (MarketContext):
 * genesis.ts, token-accounts.ts and pool-accounts.ts (accounts), scenario.ts (the schedule),
 * price-path.ts (oracle updates), order-flow.ts and liquidity.ts (swaps, deposits, withdrawals),
 * market-transactions.ts (running a transaction, recording failures and vault balance changes).
 */
export class SimulatedMarket {
  readonly ledger: Ledger;
  readonly keys: KeyBook;
  readonly options: MarketOptions;
  readonly routerProgram: string;
  /** A made-up program that CPIs some oracle updates. */
  readonly keeperProgram: string;
  /**
   * A made-up program implementing the token-metadata interface: it owns the account a
   * Token-2022 MetadataPointer names when the metadata is not in the mint (kind 'pointer').
   */
  readonly tokenMetadataProgram: string;
  /** Pools that exist on chain (created so far). */
  readonly pools: PoolRuntime[];
  readonly lookupTables: Map<string, string[]>;
  private readonly market: MarketContext;

  constructor(options: MarketOptions) {
    const root = new Rng(`${options.seed}/${options.cluster}`);
    const rng = root.fork('market');
    const tokenEventRng = root.fork('token-events');
    const keys = new KeyBook(`${options.seed}/${options.cluster}`);
    const historySlots = Math.max(1, Math.round((options.historySeconds * 1000) / options.slotMs));
    // A realistic mainnet-sized slot number, different per seed.
    const firstSlot = 300_000_000 + (root.fork('slot').nextU32() % 20_000_000);
    const clock = { firstSlot, firstSlotTimeMs: options.historyEndTimeMs - historySlots * options.slotMs, slotMs: options.slotMs };
    const ledger = new Ledger(clock, root.fork('ledger'), genesisHash(options), firstSlot - 4_000_000);
    const routerProgram = keys.key('router-program');
    const keeperProgram = keys.key('keeper-program');
    this.market = {
      options,
      ledger,
      keys,
      rng,
      tokenEventRng,
      routerProgram,
      keeperProgram,
      routerFeeOwner: keys.key('router-fee-owner'),
      tokenMetadataProgram: keys.key('token-metadata-interface-program'),
      pools: [],
      planned: [],
      traders: [],
      tokens: new Map(),
      tokenOrigins: new Map(),
      lookupTables: new Map(),
      schedule: [],
      historyEndSlot: firstSlot + historySlots - 1,
      truth: {
        cluster: options.cluster,
        seed: options.seed,
        first_slot: firstSlot,
        programs: { v1: HADRON_PROGRAM_V1, v2: HADRON_PROGRAM_V2, router: routerProgram, keeper: keeperProgram },
        global_fee_configs: [],
        pools: [],
        swaps: [],
        oracle_updates: [],
        liquidity: [],
        vault_balance_changes: [],
        fee_split_changes: [],
        failed_transactions: [],
      },
    };
    this.ledger = ledger;
    this.keys = keys;
    this.options = options;
    this.routerProgram = routerProgram;
    this.keeperProgram = keeperProgram;
    this.tokenMetadataProgram = this.market.tokenMetadataProgram;
    this.pools = this.market.pools;
    this.lookupTables = this.market.lookupTables;
    genesis(this.market);
    planLifecycle(this.market);
  }
  /** Generates the whole history; afterwards everything in it is final. */
  generateHistory(): void {
    while (this.ledger.head < this.market.historyEndSlot) this.produceSlot();
    this.ledger.settle();
  }

  /**
   * Schedules an administrator's change of one pool at `slot` (tests of live indexing): a state
   * change (2 pause, 1 resume) or a rewrite of its fee split (`splitGeneration`), executed as the
   * scenario's own changes are when that slot is produced.
   */
  scheduleAdmin(config: string, slot: number, change: { state: number } | { splitGeneration: number }): void {
    const m = this.market;
    const pool = this.pools.find((p) => p.fact.config === config);
    if (!pool) throw new Error(`no pool ${config} in this market`);
    const run = 'state' in change ? (s: number) => setPoolState(m, pool, change.state, s) : (s: number) => changeFeeSplit(m, pool, change.splitGeneration, s);
    m.schedule.push({ slot, run });
    m.schedule.sort((a, b) => a.slot - b.slot);
  }

  /**
   * Changes the live order flow from the next slot on (benches that need a steady rate): swaps and
   * oracle updates per second on a busy pool, medium and quiet pools scaled as at creation. The
   * slots already produced (and the ground truth) are unchanged.
   */
  setRates(rates: { swapsPerSecond?: number; midpriceUpdatesPerSecond?: number }): void {
    for (const pool of this.pools) {
      const factor = ACTIVITY_FACTOR[pool.template.activity];
      if (rates.swapsPerSecond !== undefined) pool.swapRate = rates.swapsPerSecond * factor;
      if (rates.midpriceUpdatesPerSecond !== undefined) pool.midpriceRate = rates.midpriceUpdatesPerSecond * factor;
    }
  }

  get lastHistorySlot(): number {
    return this.market.historyEndSlot;
  }

  /** Produces the next slot (history or live). */
  produceSlot(): void {
    const m = this.market;
    const slot = this.ledger.head + 1;
    const skipped = m.rng.chance(this.options.skippedSlotRate);
    const block = this.ledger.openSlot(slot, skipped);
    if (!block) return;
    while (m.schedule.length > 0 && m.schedule[0].slot <= slot) m.schedule.shift()!.run(slot);

    type Action = () => void;
    const actions: Action[] = [];
    const seconds = this.options.slotMs / 1000;
    for (const pool of this.pools) {
      const state = pool.config.state;
      if (state === 4) continue;
      for (let n = m.rng.poisson(pool.midpriceRate * seconds); n > 0; n--) actions.push(() => oracleUpdate(m, pool, slot));
      const swaps = m.rng.poisson(pool.swapRate * seconds);
      for (let n = 0; n < swaps; n++) {
        if (state === 1 && m.rng.chance(SHAPE_RATES.swapWithOracleUpdate)) actions.push(() => swapWithOracleUpdate(m, pool, slot));
        else if (state === 1) actions.push(() => swap(m, pool, slot));
        else if (m.rng.chance(0.5)) actions.push(() => swap(m, pool, slot)); // a client that did not notice: fails
      }
      if (state === 1 && m.rng.chance(pool.liquidityRate * seconds)) actions.push(() => liquidity(m, pool, slot, m.rng.chance(0.55) ? 'deposit' : 'withdraw'));
    }
    for (const action of m.rng.shuffle(actions)) action();
  }

  groundTruth(): GroundTruth {
    const t = this.market.truth;
    return {
      cluster: t.cluster,
      seed: t.seed,
      first_slot: t.first_slot,
      history_end_slot: this.market.historyEndSlot,
      head_slot: this.ledger.head,
      programs: t.programs,
      global_fee_configs: t.global_fee_configs,
      tokens: [...this.market.tokens.values()].map((t) => ({ ...t, renames: t.renames.map((r) => ({ ...r })) })),
      pools: t.pools.map((p) => ({ ...p, state_history: [...p.state_history] })),
      swaps: [...t.swaps],
      oracle_updates: [...t.oracle_updates],
      liquidity: [...t.liquidity],
      vault_balance_changes: [...t.vault_balance_changes],
      fee_split_changes: [...t.fee_split_changes],
      failed_transactions: [...t.failed_transactions],
    };
  }
}

/**
 * The chain's genesis hash commits to everything that shapes the chain, as a real cluster's does to
 * its genesis config: the seed and cluster, the history's length and end, the slot time, every rate.
 * The same options are the same chain, answer for answer. A simulator started again with its
 * history ending at another time (`npm run demo` and `start:simulator` end it now by default) has
 * its blocks re-timed: another chain, and it says so, as a test validator reset would; an index
 * built from the first refuses it (ClusterIndexer.verifyChain).
 */
function genesisHash(options: MarketOptions): string {
  const fields = Object.entries(options).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return encodeBase58(
    createHash('sha256')
      .update(`hadron-sim/genesis/${JSON.stringify(fields)}`)
      .digest(),
  );
}
