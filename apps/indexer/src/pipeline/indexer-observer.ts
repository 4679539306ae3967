import type { Cluster, HadronEvent } from '@hadron/contracts';
import { clipText, logList, type Logger } from '@hadron/platform';
import type { IndexerMetrics } from '../metrics/indexer-metrics';
import type { GapRow, RecordedProblem } from '../store/indexer-store';
import type { ClusterStatus } from './cluster-status';
import type { LateRef } from './cycle-plan';

/**
 * The one place that turns what the indexer did into metrics and log lines: the head and the
 * freshness of the data (the lag gauges), events and transactions counted, what a commit changed,
 * and the backfill's progress line. It decides nothing.
 */
export class IndexerObserver {
  /** Newest slot seen at the indexing commitment. */
  headSlot = 0;
  /** Block time of the newest indexed transaction (freshness: status, readiness body, gauges). */
  indexedBlockTime: number | null = null;
  private readonly labels: { cluster: Cluster };

  constructor(
    private readonly cluster: Cluster,
    private readonly metrics: IndexerMetrics,
    private readonly log: Logger,
    private readonly status: () => ClusterStatus,
  ) {
    this.labels = { cluster };
  }

  noteHead(slot: number): void {
    if (slot > this.headSlot) this.headSlot = slot;
    this.metrics.headSlot.set(this.labels, this.headSlot);
  }

  updateLag(): void {
    const s = this.status();
    if (s.slotLag !== null) this.metrics.slotLag.set(this.labels, s.slotLag);
    if (s.lagSeconds !== null) this.metrics.lagSeconds.set(this.labels, s.lagSeconds);
    this.metrics.rpcFailingSeconds.set(this.labels, s.rpcFailingSeconds);
  }

  /** A block time (unix s; −1 = none) of something now indexed: the newest one is the data's freshness. */
  noteIndexedTime(blockTime: number): void {
    if (blockTime < 0 || (this.indexedBlockTime !== null && blockTime <= this.indexedBlockTime)) return;
    this.indexedBlockTime = blockTime;
    this.metrics.indexedBlockTime.set(this.labels, blockTime);
  }

  countEvents(events: readonly HadronEvent[]): void {
    for (const e of events) this.metrics.events.inc({ cluster: this.cluster, type: e.type });
  }

  /** Seconds spent in an indexing stage (IndexerMetrics.stageSeconds names them). */
  stage(stage: 'listing' | 'listing_window' | 'fetch' | 'fetch_wait' | 'decode' | 'build' | 'append' | 'commit', seconds: number): void {
    this.metrics.stage(this.cluster, stage, seconds);
  }

  transactionsBuilt(n: number): void {
    if (n > 0) this.metrics.transactions.inc(this.labels, n);
  }

  /** The durable state after a reload. */
  reloaded(s: { gaps: number; pools: number; throughSlot: number | null }): void {
    this.metrics.gapLedger.set(this.labels, s.gaps);
    this.metrics.pools.set(this.labels, s.pools);
    if (s.throughSlot !== null) this.metrics.cursorSlot.set(this.labels, s.throughSlot);
  }

  heldPools(n: number): void {
    this.metrics.heldPools.set(this.labels, n);
  }

  /** Whether the RPC serves another chain than the index's (ClusterIndexer.verifyChain). */
  wrongChain(wrong: boolean): void {
    this.metrics.wrongChain.set(this.labels, wrong ? 1 : 0);
  }

  /** A chunk made durable: what it recorded, and where the cursor now is. */
  committed(c: {
    throughSlot: number;
    last: boolean;
    pools: number;
    heldPools: number;
    gapLedger: number;
    gaps: readonly GapRow[];
    problems: readonly RecordedProblem[];
    builtWithOpenGap: number;
  }): void {
    this.metrics.heldPools.set(this.labels, c.heldPools);
    if (c.builtWithOpenGap > 0) this.metrics.builtWithOpenGap.inc(this.labels, c.builtWithOpenGap);
    if (c.gaps.length > 0) {
      this.metrics.gapsRecorded.inc(this.labels, c.gaps.length);
      this.log.warn(
        { gaps: logList(c.gaps.map((g) => ({ signature: g.signature, error: clipText(g.lastError, 200) }))) },
        `${c.gaps.length} transaction(s) not fetched after every retry: recorded in the gap ledger (all in indexer.gap)`,
      );
    }
    for (const p of c.problems) this.metrics.problems.inc({ cluster: this.cluster, code: p.code });
    this.metrics.gapLedger.set(this.labels, c.gapLedger);
    this.metrics.pools.set(this.labels, c.pools);
    this.metrics.cursorSlot.set(this.labels, c.throughSlot);
    if (c.last) this.metrics.backfillRatio.set(this.labels, 1);
    this.updateLag();
  }

  lateListed(late: readonly LateRef[]): void {
    this.metrics.lateListed.inc(this.labels, late.length);
    this.log.warn(
      { late: logList(late.map((r) => r.signature)) },
      `the RPC listed ${late.length} transaction(s) of slots already indexed (its signature index lagged): indexing them from the gap ledger (all in indexer.gap)`,
    );
  }

  gapsResolved(resolved: number, left: number): void {
    this.metrics.gapsResolved.inc(this.labels, resolved);
    this.metrics.gapLedger.set(this.labels, left);
    this.log.info({ resolved, left }, 'gap-ledger transactions fetched and indexed');
  }

  backfillRatio(done: number, total: number): void {
    this.metrics.backfillRatio.set(this.labels, total === 0 ? 1 : Math.min(1, done / total));
  }

  unreadableSplits(n: number): void {
    this.metrics.unreadableSplits.set(this.labels, n);
  }

  oracleUnknownAtStart(field: 'midprice' | 'spread'): void {
    this.metrics.oracleUnknownAtStart.inc({ cluster: this.cluster, field });
  }

  /** Signatures listed for one window of a paged range. */
  listingWindow(signatures: number): void {
    this.metrics.listingWindow.observe(this.labels, signatures);
  }

  cycleFailed(): void {
    this.metrics.cycleErrors.inc(this.labels);
  }

  progressLine(total: number, everyMs: number, now: () => number): ProgressLine {
    return new ProgressLine(this.log, total, everyMs, now);
  }
}

/** The backfill progress line: done/total, rate, ETA. */
export class ProgressLine {
  private readonly started: number;
  private lastAt: number;

  constructor(
    private readonly log: Logger,
    private readonly total: number,
    private readonly everyMs: number,
    private readonly now: () => number,
  ) {
    this.started = now();
    this.lastAt = this.started;
    if (total > 0) log.info({ total }, 'catching up: indexing the backfill range');
  }

  update(done: number): void {
    const now = this.now();
    if (now - this.lastAt < this.everyMs) return;
    this.lastAt = now;
    const rate = done / Math.max(0.001, (now - this.started) / 1000);
    const eta = rate > 0 ? Math.round((this.total - done) / rate) : null;
    this.log.info(
      { done, total: this.total, percent: Math.round((done / Math.max(1, this.total)) * 1000) / 10, txPerSecond: Math.round(rate), etaSeconds: eta },
      `backfill ${done}/${this.total} tx, ${Math.round(rate)} tx/s, ETA ${eta ?? '?'} s`,
    );
  }

  finish(done: number): void {
    if (this.total === 0) return;
    const seconds = (this.now() - this.started) / 1000;
    this.log.info({ done, seconds: Math.round(seconds * 10) / 10, txPerSecond: Math.round(done / Math.max(0.001, seconds)) }, 'caught up');
  }
}
