import type { HadronEvent } from '@hadron/contracts';
import type { GapRow, RecordedProblem } from '../store/indexer-store';
import type { ClusterRuntime } from './cluster-runtime';
import { gapRetryDelay } from './cycle-plan';
import { deriveEvents } from './derive-events';
import { EventBuilder } from './event-builder';
import { UNKNOWN_STATE, type PoolRecord } from './pool-state';

const GAP_BATCH = 100;

/**
 * The gap ledger (indexer.gap): transactions the RPC did not serve in time, fetched again later
 * and, once served, indexed with the pools' state as it was at their position (deriveEvents).
 */
export class GapLedger {
  /** Open gap-ledger transactions. */
  count = 0;
  /** Open gap-ledger transactions per program that listed them. */
  openPrograms = new Map<string, number>();
  private nextCheck = 0;

  constructor(
    private readonly rt: ClusterRuntime,
    /** Facts about `config` may be built now (it is not a held pool). */
    private readonly admits: (pools: ReadonlyMap<string, unknown>) => (config: string | null) => boolean,
  ) {}

  async reload(): Promise<void> {
    this.count = await this.rt.d.store.gapCount(this.rt.cluster);
    this.openPrograms = await this.rt.d.store.openGapsByProgram(this.rt.cluster);
  }

  /** A commit recorded these gaps. */
  recorded(gaps: readonly GapRow[]): void {
    for (const g of gaps) for (const p of g.programs ?? []) this.openPrograms.set(p, (this.openPrograms.get(p) ?? 0) + 1);
    this.count += gaps.length;
  }

  due(): boolean {
    return this.rt.now() >= this.nextCheck;
  }

  /** Fetches due gap-ledger transactions again; resolved ones get their events now (state as it was at their position). */
  async retry(): Promise<void> {
    const { d, cluster } = this.rt;
    this.nextCheck = this.rt.now() + Math.min(d.settings.gapRetryMs, 5000);
    if (this.count === 0) return;
    const due = await d.store.dueGaps(cluster, GAP_BATCH);
    if (due.length === 0) return;
    const results = await d.rpc.getTransactions(due.map((g) => g.signature));
    const events: HadronEvent[] = [];
    const problems: RecordedProblem[] = [];
    const resolved: string[] = [];
    const known = this.rt.state.progress.pools;
    for (const [i, gap] of due.entries()) {
      const res = results[i];
      if (!res.ok) {
        await d.store.deferGap(cluster, gap.signature, res.failure.message, gapRetryDelay(d.settings.gapRetryMs, gap.attempts));
        continue;
      }
      const pools = new Map<string, PoolRecord>();
      for (const [config, r] of known) pools.set(config, { ...r, tracked: { ...(gap.state[config] ?? UNKNOWN_STATE) } });
      const ref = { signature: gap.signature, slot: gap.slot, blockTime: null, txIndex: gap.txIndex };
      const out = deriveEvents(
        { refs: [ref], txs: new Map([[gap.signature, res]]), problems: [] },
        {
          decode: this.rt.state.ctx,
          pools,
          builder: new EventBuilder(cluster, pools),
          admits: this.admits(known),
          followSplitWrites: false,
          keepAllInitializes: true,
        },
      );
      if (out.held.length > 0) {
        const waitingFor = out.held.map((h) => h.pool);
        await d.store.deferGap(cluster, gap.signature, `waiting for held pool ${waitingFor.join(', ')} (mint not readable yet)`, d.settings.gapRetryMs);
        continue;
      }
      events.push(...out.events);
      problems.push(...out.problems);
      resolved.push(gap.signature);
    }
    if (resolved.length === 0) return;
    await this.rt.fenced(async (db, epoch) => {
      await d.sink.append(events, epoch);
      await d.store.resolveGaps(cluster, resolved, problems, db);
    });
    this.rt.observer.countEvents(events);
    await this.reload();
    this.rt.observer.gapsResolved(resolved.length, this.count);
  }
}
