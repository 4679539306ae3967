import { clipText, logList } from '@hadron/platform';
import { decodeContextOf } from '../decode';
import type { PoolStatic } from '../discovery/pool-accounts';
import type { AccountsSnapshot } from '../discovery/pool-reader';
import type { WireTransaction } from '../source/solana-rpc';
import type { CycleRecord, NewPool } from '../store/indexer-store';
import type { TxRef } from './chain-order';
import type { ClusterRuntime } from './cluster-runtime';
import { nextSnapshotDue } from './cycle-plan';
import type { Fetched } from './derive-events';
import { fieldsMaybeSetInRange, lookbackOracleState, startFromSnapshot, type OracleStart } from './oracle-lookback';
import { knownPoolOf, UNKNOWN_STATE } from './pool-state';

export interface Snapshot {
  accounts: AccountsSnapshot;
  blockTime: number | null;
  newPools: Record<string, NewPool>;
}

/**
 * The account snapshot a cycle ends at: pools read (and discovered), new pools' tokens read (a pool
 * whose mint does not read is held), and the oracle state in effect at the range start of new pools.
 */
export class SnapshotReader {
  private readonly unreadableSplitsLogged = new Set<string>();

  constructor(private readonly rt: ClusterRuntime) {}

  /** Account snapshot of every known pool (and, with `discover`, of new ones) at a slot ≥ minSlot. */
  async take(discover: boolean, minSlot?: number): Promise<Snapshot> {
    const statics = [...this.rt.state.progress.pools.values()].map((r) => r.static);
    // Held pools are read again at every snapshot, discovery or not.
    const newStatics = new Map([...this.rt.state.held].filter(([config]) => !this.rt.state.progress.pools.has(config)));
    let min = minSlot;
    if (discover) {
      this.rt.state.lastDiscoveryAt = this.rt.now();
      const found = await this.rt.d.reader.discover(minSlot);
      min = Math.max(min ?? 0, found.slot);
      for (const p of found.pools) if (!this.rt.state.progress.pools.has(p.config)) newStatics.set(p.config, p);
    }
    const accounts = await this.rt.d.reader.snapshot([...statics, ...newStatics.values()], min);
    await this.noteUnreadableSplits(accounts);
    const newPools: Record<string, NewPool> = {};
    const present = [...newStatics.values()].filter((p) => accounts.pools[p.config] !== undefined);
    if (present.length > 0) {
      const { tokens, unreadable } = await this.rt.d.reader.tokenMetadata(
        present.flatMap((p) => [p.mintX, p.mintY]),
        accounts.slot,
      );
      for (const p of present) {
        const [x, y] = [tokens.get(p.mintX), tokens.get(p.mintY)];
        if (x && y) newPools[p.config] = { static: p, tokens: { x, y }, tracked: { ...UNKNOWN_STATE } };
        else await this.holdPool(p, [p.mintX, p.mintY].flatMap((m) => unreadable.get(m) ?? []).join('; '), accounts.slot);
      }
    }
    const blockTime = await this.rt.d.rpc.getBlockTime(accounts.slot);
    this.rt.state.snapshotDueAt = nextSnapshotDue(this.rt.now(), this.rt.state.held.size, this.rt.d.settings.refreshMs);
    if (Object.keys(newPools).length > 0)
      this.rt.log.info(
        { slot: accounts.slot, newPools: logList(Object.keys(newPools)) },
        `${Object.keys(newPools).length} pool(s) discovered (all in indexer.pool)`,
      );
    return { accounts, blockTime, newPools };
  }

  /**
   * A pool whose mint does not read: held (not announced, its transactions set aside) while every
   * other pool goes on; visible as a recorded problem, a gauge, the status and readiness.
   */
  private async holdPool(p: PoolStatic, why: string, slot: number): Promise<void> {
    if (this.rt.state.held.has(p.config)) return;
    this.rt.state.held.set(p.config, p);
    this.rt.observer.heldPools(this.rt.state.held.size);
    const message = `${why}: decimals are needed before the pool is announced; its transactions are held until the mint reads`;
    this.rt.log.warn({ pool: p.config, why: clipText(why, 512) }, 'pool held: a mint does not read yet; indexing every other pool meanwhile');
    await this.rt.d.store.recordProblems(this.rt.cluster, [{ code: 'mint_unavailable', message, eventId: `${p.config}:mints`, poolConfig: p.config, slot }]);
  }

  /**
   * Fee configs whose tail does not read as a split under the assumed layout: their pools take
   * the default recipient (no split) — a recorded problem, a gauge, and a warning, once per fee config.
   */
  private async noteUnreadableSplits(accounts: AccountsSnapshot): Promise<void> {
    const problems = Object.entries(accounts.pools)
      .filter(([, a]) => a.fee?.splitUnreadable !== undefined)
      .map(([config, a]) => ({
        code: 'implausible_fee_split',
        message: `fee config ${a.feeConfig}: ${a.fee!.splitUnreadable}; treated as the default recipient`,
        eventId: `${a.feeConfig}:fee_split`,
        poolConfig: config,
        slot: accounts.slot,
      }));
    this.rt.observer.unreadableSplits(problems.length);
    const fresh = problems.filter((p) => !this.unreadableSplitsLogged.has(p.eventId));
    if (fresh.length === 0) return;
    this.rt.log.warn(
      { problems: logList(fresh.map((p) => clipText(p.message, 256))) },
      `fee split not readable under the assumed layout for ${fresh.length} pool(s): they use the default recipient (all in indexer.problem)`,
    );
    await this.rt.d.store.recordProblems(this.rt.cluster, fresh);
    for (const p of fresh) this.unreadableSplitsLogged.add(p.eventId);
  }

  /**
   * The oracle state in effect at the start of the range, for pools first seen now
   * (oracle-lookback.ts): the read at C for each field nothing in the range sets — known for all
   * fetched transactions (lookahead), or when the oracle's last update is older than the range
   * (at-target) — else the newest setter before the range, from the oracle's history.
   */
  async lookback(cycle: CycleRecord, first: TxRef | null, fetched: Fetched | null): Promise<void> {
    if (!first || !cycle.snapshot) return;
    const txs = fetched ? fetched.refs.map((r) => fetched.txs.get(r.signature)).map((res) => (res?.ok ? res.value : null)) : null;
    for (const pool of Object.values(cycle.newPools)) {
      const found = await this.oracleAtStart(pool.static, cycle.snapshot, first, txs);
      pool.tracked = { ...pool.tracked, midpriceQ32: found.midpriceQ32, spreadFactorQ32: found.spreadFactorQ32 };
    }
  }

  /** The pool's oracle state in effect before `first`, a range's first transaction (`txs`: the range, when fetched). */
  async oracleAtStart(pool: PoolStatic, snapshot: AccountsSnapshot, first: TxRef, txs: readonly (WireTransaction | null)[] | null): Promise<OracleStart> {
    const ctx = decodeContextOf(new Map([[pool.config, knownPoolOf(pool)]]));
    const setInRange = fieldsMaybeSetInRange({ firstSlot: first.slot, txs }, pool, ctx, snapshot.pools[pool.config]?.oracle);
    let found = startFromSnapshot(snapshot, pool, setInRange);
    if (found.midpriceQ32 === null || found.spreadFactorQ32 === null) found = await lookbackOracleState(this.rt.d.rpc, pool, first, ctx, found);
    const unknown = (['midprice', 'spread'] as const).filter((f) => (f === 'midprice' ? found.midpriceQ32 : found.spreadFactorQ32) === null);
    for (const field of unknown) this.rt.observer.oracleUnknownAtStart(field);
    if (unknown.length > 0)
      this.rt.log.warn(
        { pool: pool.config, oracle: pool.oracle, unknown, fromSlot: first.slot },
        'oracle value in effect before the range not found: swaps carry null until an update sets it',
      );
    return found;
  }
}
