import type { CycleRecord, RecordedProblem } from '../store/indexer-store';
import { slotAlignedChunks, type TxRef } from './chain-order';
import type { ClusterRuntime } from './cluster-runtime';
import { endOf, missingToHold, programCursorsAfter, type Listing, type RangeListing } from './cycle-plan';
import { applyAtEnd, attributionPlan, deriveEvents, lateGaps, oracleOf, type ChunkOutput, type DeriveContext, type Fetched } from './derive-events';
import { EventBuilder, type ObservationPosition } from './event-builder';
import type { GapLedger } from './gap-ledger';
import type { ChainReader } from './chain-reader';
import { replayHeld } from './held-replay';
import { readAhead } from './read-ahead';
import type { PoolRecord } from './pool-state';
import type { SnapshotReader } from './snapshot-reader';

/** The cursor holds for a listed transaction the RPC does not serve yet: a wait, not a failure. */
export class HoldingForMissing extends Error {}

/**
 * Runs a planned cycle: chunk by chunk (at-target) or as one batch (lookahead), each chunk's
 * events derived (deriveEvents), appended and the cursor moved in one fenced transaction; only
 * then does the in-memory state take the chunk's result.
 */
export class CycleRunner {
  /** When each not-yet-served transaction first failed every retry (the gap grace period). */
  private firstFailure = new Map<string, number>();

  constructor(
    private readonly rt: ClusterRuntime,
    private readonly chain: ChainReader,
    private readonly snapshots: SnapshotReader,
    private readonly gaps: GapLedger,
    private readonly admits: (pools: ReadonlyMap<string, unknown>) => (config: string | null) => boolean,
  ) {}

  /**
   * A transaction the RPC listed but will not serve, even after every retry, is usually a lagging
   * node: hold the cursor (retry the chunk) for the grace period so its events land in order and
   * exact. Past the grace period the cursor moves on and the transaction goes to the gap ledger.
   */
  holdForMissing(f: Fetched): void {
    const graceMs = this.rt.d.settings.gapGraceMs;
    const { young, firstFailure } = missingToHold(f.txs, this.firstFailure, this.rt.now(), graceMs);
    this.firstFailure = firstFailure;
    if (young.length > 0)
      throw new HoldingForMissing(
        `waiting for ${young.length} transaction(s) the RPC listed but does not serve yet (e.g. ${young[0]}); gap ledger after ${graceMs / 1000} s`,
      );
  }

  async run(cycle: CycleRecord, listing: RangeListing, fetched: Fetched | null): Promise<void> {
    const { rt } = this;
    const { settings } = rt.d;
    const snapshot = cycle.snapshot;
    const builder = (pools: ReadonlyMap<string, PoolRecord>) => new EventBuilder(rt.cluster, pools);
    const at: ObservationPosition = { slot: cycle.targetSlot, blockTime: cycle.targetBlockTime, signature: null, txIndex: null };
    // Listed late (their slot is indexed already): never dropped — the cycle's first commit puts them in the gap ledger.
    let late = listing.late;
    let released: { released: string[]; problems: RecordedProblem[] } | null = null;
    const commit = async (throughSlot: number, out: ChunkOutput, window: Listing, last: boolean) => {
      const withReleased = released ? { ...out, problems: [...out.problems, ...released.problems], released: released.released } : out;
      await this.commitChunk(cycle, throughSlot, this.withLateListed(withReleased, late), pools, window, last);
      late = [];
      released = null;
    };
    const derive = (f: Fetched, window: Listing, plan: DeriveContext['plan']) => {
      const started = performance.now();
      const ctx = { decode: rt.state.ctx, pools, builder: builder(pools), admits: this.admits(pools), plan, snapshot, listed: window.listed };
      const out = deriveEvents(f, { ...ctx, openGapPrograms: this.gaps.openPrograms, followSplitWrites: true });
      rt.observer.stage('decode', out.decodeSeconds);
      rt.observer.stage('build', (performance.now() - started) / 1000 - out.decodeSeconds);
      rt.observer.transactionsBuilt(out.transactions);
      return out;
    };

    // Work on copies: the in-memory state changes only once the chunk is durable (commitChunk).
    const pools = new Map([...rt.state.progress.pools].map(([k, v]) => [k, structuredClone(v)]));
    // Pools first seen by this cycle become records now (their events may come before PoolDiscovered in lookahead mode).
    for (const n of Object.values(cycle.newPools)) {
      if (pools.has(n.static.config) || !snapshot?.pools[n.static.config]) continue;
      pools.set(n.static.config, {
        static: n.static,
        tokens: n.tokens,
        tracked: { ...n.tracked, split: null },
        published: snapshot.pools[n.static.config],
        discoveredSlot: cycle.targetSlot,
      });
    }

    if (cycle.mode === 'at-target') {
      const newPools = Object.keys(cycle.newPools).filter((c) => pools.has(c) && !rt.state.progress.pools.has(c));
      if (!cycle.discoveryPublished && newPools.length > 0) {
        const events = newPools.flatMap((c) => builder(pools).discovered(pools.get(c)!, snapshot!.pools[c], at, oracleOf(snapshot!.pools[c].oracle)));
        await rt.fenced((_db, epoch) => rt.d.sink.append(events, epoch));
        rt.observer.countEvents(events);
      }
      cycle.discoveryPublished = true;
      released = await replayHeld(rt, this.snapshots, cycle, pools);
      const total = listing.kind === 'full' ? listing.refs.length : listing.count;
      const progress = rt.observer.progressLine(total, settings.progressMs, rt.now);
      let done = 0;
      // Chunk k+1 is listed and fetched while chunk k is derived and committed (readAhead): the RPC's answers and the
      // indexer's own work overlap instead of taking turns. Commits stay one at a time, in chain order.
      for await (const { window, chunk, fetched: f } of readAhead(this.fetchedChunks(listing), (s) => rt.observer.stage('fetch_wait', s))) {
        if (rt.state.stopping) return;
        this.holdForMissing(f);
        const out = derive(f, window, null);
        done += chunk.length;
        await commit(chunk[chunk.length - 1].slot, out, window, false);
        progress.update(done);
        rt.observer.backfillRatio(done, total);
      }
      if (rt.state.stopping) return;
      const end = snapshot ? applyAtEnd(snapshot, cycle.targetSlot, pools, rt.state.progress.pools, builder(pools), at, new Set(newPools)) : [];
      await commit(cycle.targetSlot, { events: end, gaps: [], problems: [], lastSignature: null, builtWithOpenGap: 0 }, endOf(listing), true);
      progress.finish(done);
      return;
    }

    // lookahead: one chunk, every transaction already fetched (and held for: cycle())
    if (listing.kind !== 'full' || !fetched) throw new Error('unreachable: a lookahead cycle is listed in full and fetched');
    const f = fetched;
    released = await replayHeld(rt, this.snapshots, cycle, pools);
    const plan = snapshot ? attributionPlan(snapshot, pools, rt.state.progress.pools, f) : null;
    const out = derive(f, listing, plan);
    if (snapshot) out.events.push(...applyAtEnd(snapshot, cycle.targetSlot, pools, rt.state.progress.pools, builder(pools), at, new Set(), plan!));
    await commit(cycle.targetSlot, out, listing, true);
  }

  /** The range's chunks (slot-aligned, window by window), each with its transactions fetched. */
  private async *fetchedChunks(listing: RangeListing): AsyncGenerator<{ window: Listing; chunk: TxRef[]; fetched: Fetched }> {
    for await (const window of this.chain.windows(listing)) {
      for (const chunk of slotAlignedChunks(window.refs, this.rt.d.settings.chunkTxs)) {
        if (this.rt.state.stopping) return;
        yield { window, chunk, fetched: await this.chain.fetch(chunk) };
      }
    }
  }

  private async commitChunk(
    cycle: CycleRecord,
    throughSlot: number,
    out: ChunkOutput,
    pools: Map<string, PoolRecord>,
    listing: Listing,
    last: boolean,
  ): Promise<void> {
    const { rt } = this;
    const progress = rt.state.progress;
    // What this chunk moves forward: committed with the events, then made the in-memory truth.
    const advanced = {
      throughSlot,
      lastSignature: out.lastSignature ?? progress.lastSignature,
      startSlot: progress.startSlot ?? listing.refs[0]?.slot ?? cycle.targetSlot,
      backfillDone: progress.backfillDone || last,
      cycle: last ? null : cycle,
      programCursors: programCursorsAfter(progress.programCursors, listing.listed, throughSlot),
    };
    // Fenced: the append and the cursor it moves happen only while this process holds the cluster.
    await rt.fenced(async (db, epoch) => {
      const appendStarted = performance.now();
      await rt.d.sink.append(out.events, epoch);
      const commitStarted = performance.now();
      rt.observer.stage('append', (commitStarted - appendStarted) / 1000);
      await rt.d.store.commit(
        rt.cluster,
        {
          ...advanced,
          pools: [...pools.values()],
          gaps: out.gaps,
          problems: out.problems,
          held: out.held,
          released: out.released,
        },
        db,
      );
      rt.observer.stage('commit', (performance.now() - commitStarted) / 1000);
    });
    rt.observer.countEvents(out.events);
    rt.observer.noteIndexedTime(
      Math.max(
        -1,
        ...listing.refs.filter((r) => r.slot <= throughSlot).map((r) => r.blockTime ?? -1),
        last && cycle.targetSlot === throughSlot ? (cycle.targetBlockTime ?? -1) : -1,
      ),
    );
    // Durable: make it the in-memory truth.
    rt.state.progress = { ...progress, ...advanced, pools: new Map([...pools].map(([k, v]) => [k, structuredClone(v)])) };
    rt.state.observedThrough = throughSlot;
    rt.state.lastProgressAt = rt.now();
    for (const config of rt.state.progress.pools.keys()) rt.state.held.delete(config);
    this.gaps.recorded(out.gaps);
    rt.observer.committed({
      throughSlot,
      last,
      pools: rt.state.progress.pools.size,
      heldPools: rt.state.held.size,
      gapLedger: this.gaps.count,
      gaps: out.gaps,
      problems: out.problems,
      builtWithOpenGap: out.builtWithOpenGap,
    });
  }

  /** Listed-late transactions join the chunk's gaps: the gap ledger indexes them with the state at the cursor. */
  private withLateListed(out: ChunkOutput, late: Listing['late']): ChunkOutput {
    if (late.length === 0) return out;
    const gaps = lateGaps(late, this.rt.state.progress.pools);
    this.rt.observer.lateListed(late);
    return { ...out, gaps: [...out.gaps, ...gaps] };
  }
}
