import { decodeContextOf, type KnownPool } from '../decode';
import type { CycleRecord, NewPool } from '../store/indexer-store';
import type { ChainReader } from './chain-reader';
import type { ClusterRuntime } from './cluster-runtime';
import { extendListing, firstOf, rangeBounds, snapshotTrigger, type RangeListing } from './cycle-plan';
import type { CycleRunner } from './cycle-runner';
import type { Fetched } from './derive-events';
import { knownPoolOf } from './pool-state';
import type { Snapshot, SnapshotReader } from './snapshot-reader';

/** A cycle ready to run: its record (saved when it has a snapshot), its listing, and (lookahead) its transactions. */
export interface OpenedCycle {
  cycle: CycleRecord;
  listing: RangeListing;
  fetched: Fetched | null;
  /** It indexes something: poll again at once. */
  busy: boolean;
}

/**
 * Opening a cycle: its target (the head, or a snapshot's slot), its mode (lookahead when the range
 * fits one chunk), a snapshot when one is due or the batch calls for one (snapshotTrigger), the
 * range listed (and, lookahead, fetched), and the cycle saved before anything is appended.
 */
export class CycleOpener {
  constructor(
    private readonly rt: ClusterRuntime,
    private readonly chain: ChainReader,
    private readonly snapshots: SnapshotReader,
    private readonly runner: CycleRunner,
  ) {}

  /** Resumes the saved cycle, or plans the next one; null when nothing new is up to the head. */
  async open(): Promise<OpenedCycle | null> {
    const { state, d } = this.rt;
    const resumed = state.progress.cycle;
    if (resumed) {
      this.rt.log.info({ targetSlot: resumed.targetSlot, mode: resumed.mode }, 'resuming the cycle in progress');
      for (const p of Object.values(resumed.heldPools ?? {})) if (!state.progress.pools.has(p.config)) state.held.set(p.config, p);
      await this.refreshHead(); // the target is the saved one: the head moves on without it
      // A lookahead cycle is one batch, whatever its size now (late listings may have grown it).
      const listing = await this.chain.list(resumed.targetSlot, resumed, resumed.mode === 'lookahead' ? Number.POSITIVE_INFINITY : d.settings.chunkTxs);
      this.rebuildContext(Object.values(resumed.newPools));
      const fetched = listing.kind === 'full' && resumed.mode === 'lookahead' ? await this.chain.fetch(listing.refs) : null;
      if (fetched) this.runner.holdForMissing(fetched);
      return { cycle: resumed, listing, fetched, busy: true };
    }

    const first = state.progress.throughSlot === null;
    let snapshot: Snapshot | null = null;
    let target: number;
    if (first || this.rt.now() >= state.snapshotDueAt) {
      snapshot = await this.snapshots.take(this.rt.now() - state.lastDiscoveryAt >= d.settings.refreshMs);
      target = snapshot.accounts.slot;
    } else {
      target = await d.rpc.getSlot();
    }
    this.rt.observer.noteHead(target);
    const bounds = rangeBounds(first, d.settings.start);
    let listing = await this.chain.list(target, bounds);

    let mode: CycleRecord['mode'];
    let fetched: Fetched | null = null;
    if (listing.kind === 'full') {
      mode = 'lookahead';
      fetched = await this.chain.fetch(listing.refs);
      const trigger = snapshot
        ? null
        : snapshotTrigger(fetched, state.progress.pools, state.ctx, this.rt.now() - state.lastDiscoveryAt >= d.settings.refreshMs);
      if (trigger) {
        snapshot = await this.snapshots.take(trigger === 'discover', target);
        const more = await this.chain.listFull(snapshot.accounts.slot, { ...bounds, afterSlot: target, until: listing.newest });
        const extra = await this.chain.fetch(more.refs);
        fetched = { refs: [...fetched.refs, ...extra.refs], txs: new Map([...fetched.txs, ...extra.txs]), problems: [...fetched.problems, ...extra.problems] };
        listing = extendListing(listing, more);
        target = snapshot.accounts.slot;
        this.rt.observer.noteHead(target);
      }
    } else {
      mode = 'at-target';
      if (!snapshot) {
        snapshot = await this.snapshots.take(true, target);
        target = snapshot.accounts.slot;
        listing = await this.chain.list(target, bounds);
      }
    }

    // A lookahead batch holds for what the RPC does not serve yet BEFORE anything is derived from it and
    // saved with the cycle: the oracle state at the range start (lookback) must see every transaction.
    if (fetched) this.runner.holdForMissing(fetched);

    if (!snapshot && listing.kind === 'full' && listing.refs.length === 0 && listing.late.length === 0) {
      state.observedThrough = target; // nothing new up to the head: the cursor is as good as there
      state.lastProgressAt = this.rt.now();
      this.rt.observer.updateLag();
      return null;
    }

    const cycle: CycleRecord = {
      targetSlot: target,
      targetBlockTime: snapshot?.blockTime ?? null,
      mode,
      snapshot: snapshot?.accounts ?? null,
      newPools: snapshot?.newPools ?? {},
      ...bounds,
      discoveryPublished: false,
      heldPools: Object.fromEntries(state.held),
    };
    if (snapshot) {
      await this.snapshots.lookback(cycle, fetched?.refs[0] ?? firstOf(listing), fetched);
      await this.rt.fenced((db) => d.store.saveCycle(this.rt.cluster, cycle, db));
      state.progress.cycle = cycle;
    }
    this.rebuildContext(Object.values(cycle.newPools));
    return { cycle, listing, fetched, busy: listing.kind === 'paged' || listing.refs.length > 0 };
  }

  rebuildContext(extra: Iterable<NewPool> = []): void {
    const known = new Map<string, KnownPool>();
    for (const r of this.rt.state.progress.pools.values()) known.set(r.static.config, knownPoolOf(r.static));
    for (const n of extra) known.set(n.static.config, knownPoolOf(n.static));
    for (const p of this.rt.state.held.values()) if (!known.has(p.config)) known.set(p.config, knownPoolOf(p)); // decoded, to be set aside
    this.rt.state.ctx = decodeContextOf(known);
  }

  /**
   * The head, read on its own: a cycle that keeps failing must not freeze the lag readiness looks at.
   * One attempt: the next tick is its retry (a backoff here would only delay the cycle's own).
   */
  async refreshHead(): Promise<void> {
    try {
      this.rt.observer.noteHead(await this.rt.d.rpc.getSlot({ attempts: 1 }));
      this.rt.observer.updateLag();
    } catch {
      // the RPC is failing: the cycle errors say so
    }
  }
}
