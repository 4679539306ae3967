import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CollectFunction } from 'prom-client';
import type { RpcObserver } from '../source/json-rpc-transport';
import type { RpcFailureKind } from '../source/retry-policy';

/** Prometheus metrics of the indexer (one registry per process; `/metrics` on the ops server). */
export class IndexerMetrics {
  readonly registry = new Registry();
  /** Per cluster: whether this process is its active indexer (set by watchRoles). */
  private roles: () => ReadonlyArray<{ cluster: string; active: boolean }> = () => [];

  /**
   * 1 while this process holds the cluster (indexes it), 0 as a standby: `sum by (cluster)` is 1
   * when exactly one process indexes it. A standby publishes none of the cluster's indexing state
   * (head, cursor, lag, gaps…: every gauge below marked `standbyHidden`), so it never reads as "lag 0".
   */
  readonly active = new Gauge({
    name: 'hadron_indexer_active',
    help: "1 while this process is the cluster's active indexer (holds its lock), 0 while it stands by; the cluster's head, cursor and lag gauges come from the active one only",
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: () => {
      for (const r of this.roles()) this.active.set({ cluster: r.cluster }, r.active ? 1 : 0);
    },
  });

  readonly headSlot = new Gauge({
    name: 'hadron_indexer_head_slot',
    help: 'Newest slot seen at the indexing commitment',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly cursorSlot = new Gauge({
    name: 'hadron_indexer_cursor_slot',
    help: 'Every transaction up to this slot is indexed',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly slotLag = new Gauge({
    name: 'hadron_indexer_slot_lag',
    help: 'head slot − cursor slot',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly indexedBlockTime = new Gauge({
    name: 'hadron_indexer_indexed_block_time_seconds',
    help: 'Block time (unix s) of the newest indexed transaction',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly lagSeconds = new Gauge({
    name: 'hadron_indexer_lag_seconds',
    help: 'Age of the newest indexed transaction while behind the head; 0 at the head',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly rpcFailingSeconds = new Gauge({
    name: 'hadron_indexer_rpc_failing_seconds',
    help: 'How long the RPC has been failing without a good answer; 0 when healthy',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly transactions = new Counter({
    name: 'hadron_indexer_transactions_total',
    help: 'Successful Hadron transactions processed',
    labelNames: ['cluster'],
    registers: [this.registry],
  });
  readonly events = new Counter({
    name: 'hadron_indexer_events_total',
    help: 'Events appended to the log',
    labelNames: ['cluster', 'type'],
    registers: [this.registry],
  });
  readonly problems = new Counter({
    name: 'hadron_indexer_decode_problems_total',
    help: 'Hadron instructions that yielded no event (indexer.problem)',
    labelNames: ['cluster', 'code'],
    registers: [this.registry],
  });
  readonly gapLedger = new Gauge({
    name: 'hadron_indexer_gap_ledger_size',
    help: 'Transactions listed but not fetched yet (indexer.gap)',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly gapsRecorded = new Counter({
    name: 'hadron_indexer_gaps_recorded_total',
    help: 'Transactions that went to the gap ledger',
    labelNames: ['cluster'],
    registers: [this.registry],
  });
  readonly gapsResolved = new Counter({
    name: 'hadron_indexer_gaps_resolved_total',
    help: 'Gap-ledger transactions fetched later',
    labelNames: ['cluster'],
    registers: [this.registry],
  });
  readonly lateListed = new Counter({
    name: 'hadron_indexer_late_listed_total',
    help: 'Transactions the RPC listed only after their slot was indexed (lagging signature index); indexed from the gap ledger',
    labelNames: ['cluster'],
    registers: [this.registry],
  });
  readonly unreadableSplits = new Gauge({
    name: 'hadron_indexer_fee_splits_unreadable',
    help: 'Pools whose fee config tail did not read as a plausible fee split (assumed layout) at the last snapshot: default recipient used',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly oracleUnknownAtStart = new Counter({
    name: 'hadron_indexer_oracle_unknown_at_start_total',
    help: 'New pools whose midprice / spread in effect before the indexed range could not be found (swaps carry null until an update sets it)',
    labelNames: ['cluster', 'field'],
    registers: [this.registry],
  });
  readonly builtWithOpenGap = new Counter({
    name: 'hadron_indexer_events_built_with_open_gap_total',
    help: 'Events of pools whose program had a transaction in the gap ledger when they were built (they may miss its effect, e.g. a stale midprice)',
    labelNames: ['cluster'],
    registers: [this.registry],
  });
  readonly listingWindow = new Histogram({
    name: 'hadron_indexer_listing_window_signatures',
    help: 'Signatures held per slot window of a large range (held as page boundaries plus one window at a time)',
    labelNames: ['cluster'],
    buckets: [50, 100, 250, 500, 1000, 2500, 5000, 10_000],
    registers: [this.registry],
  });
  readonly heldPools = new Gauge({
    name: 'hadron_indexer_pools_held',
    help: 'Pools discovered but held back because a mint does not read yet (their transactions wait in indexer.held_tx; every other pool goes on)',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly wrongChain = new Gauge({
    name: 'hadron_indexer_wrong_chain',
    help: "1 while the cluster's RPC serves another chain (genesis hash) than the one its index was built from: nothing is indexed",
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly pools = new Gauge({
    name: 'hadron_indexer_pools',
    help: 'Pools known',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly backfillRatio = new Gauge({
    name: 'hadron_indexer_backfill_progress_ratio',
    help: 'Share of the current catch-up batch processed (1 = live)',
    labelNames: ['cluster'],
    registers: [this.registry],
    collect: this.standbyHidden(),
  });
  readonly cycleErrors = new Counter({
    name: 'hadron_indexer_cycle_errors_total',
    help: 'Indexing cycles that failed and were retried from the cursor',
    labelNames: ['cluster'],
    registers: [this.registry],
  });
  readonly rpcRequests = new Counter({
    name: 'hadron_indexer_rpc_calls_total',
    help: 'JSON-RPC calls sent, by method',
    labelNames: ['cluster', 'method'],
    registers: [this.registry],
  });
  readonly rpcHttpRequests = new Counter({
    name: 'hadron_indexer_rpc_http_requests_total',
    help: 'HTTP requests sent (a batch is one), by method',
    labelNames: ['cluster', 'method'],
    registers: [this.registry],
  });
  readonly rpcErrors = new Counter({
    name: 'hadron_indexer_rpc_errors_total',
    help: 'RPC failures, by method and kind (429, 5xx, timeout, malformed, missing, …)',
    labelNames: ['cluster', 'method', 'kind'],
    registers: [this.registry],
  });
  readonly rpcRetries = new Counter({
    name: 'hadron_indexer_rpc_retries_total',
    help: 'RPC calls retried, by method and failure kind',
    labelNames: ['cluster', 'method', 'kind'],
    registers: [this.registry],
  });
  readonly rpcSeconds = new Histogram({
    name: 'hadron_indexer_rpc_request_seconds',
    help: 'HTTP request duration, by method',
    labelNames: ['cluster', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /**
   * Where the indexing time goes, measured with hrtime around each stage (cheap: one counter
   * increment per batch or chunk). Work on the indexer's thread, exclusive of each other:
   * `rpc_json_parse` (JSON.parse of RPC answers), `rpc_check` (their shape checks), `decode`
   * (decodeTransaction), `build` (the rest of deriving a chunk's events), `append_encode` (events
   * validated against the contracts and serialized). The per-cluster loop, whose waits overlap the
   * other cluster's work: `listing` (a cycle's range listed up front), `fetch_wait` (waiting for
   * the next chunk's transactions: the part of listing its window and fetching it not hidden
   * behind the previous chunk's work), `append` (the log append, `append_encode` included) and
   * `commit` (cursor and state); `decode` + `build` are its deriving. The reads that run a chunk
   * ahead of the loop: `listing_window` (a window of a large range listed again) and `fetch`
   * (positions and transactions, RPC round trips included).
   */
  readonly stageSeconds = new Counter({
    name: 'hadron_indexer_stage_seconds_total',
    help: 'Seconds spent per indexing stage: thread work (rpc_json_parse, rpc_check, decode, build, append_encode), the loop (listing, fetch_wait, append, commit) and the reads a chunk ahead (listing_window, fetch)',
    labelNames: ['cluster', 'stage'],
    registers: [this.registry],
  });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'hadron_indexer_' });
  }

  /** Where each cluster's role comes from, read at every scrape (the indexers' own state, so it cannot drift). */
  watchRoles(roles: () => ReadonlyArray<{ cluster: string; active: boolean }>): void {
    this.roles = roles;
  }

  /** A gauge's collect hook: the series of clusters this process stands by for are removed before each scrape. */
  private standbyHidden(): CollectFunction<Gauge<'cluster'>> {
    const roles = () => this.roles();
    return function (this: Gauge<'cluster'>) {
      for (const r of roles()) if (!r.active) this.remove({ cluster: r.cluster });
    };
  }

  /** Adds `seconds` to a stage's time (stageSeconds). */
  stage(cluster: string, stage: string, seconds: number): void {
    if (seconds > 0) this.stageSeconds.inc({ cluster, stage }, seconds);
  }

  rpcObserver(cluster: string): RpcObserver {
    return {
      request: (method: string, calls: number, seconds: number) => {
        this.rpcRequests.inc({ cluster, method }, calls);
        this.rpcHttpRequests.inc({ cluster, method });
        this.rpcSeconds.observe({ cluster, method }, seconds);
      },
      stage: (stage: 'rpc_json_parse' | 'rpc_check', seconds: number) => this.stageSeconds.inc({ cluster, stage }, seconds),
      failure: (method: string, kind: RpcFailureKind) => this.rpcErrors.inc({ cluster, method, kind }),
      retry: (method: string, kind: RpcFailureKind) => this.rpcRetries.inc({ cluster, method, kind }),
    };
  }
}
