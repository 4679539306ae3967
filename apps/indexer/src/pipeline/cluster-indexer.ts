import type { Cluster } from '@hadron/contracts';
import type { Logger } from '@hadron/platform';
import type { DecodeContext } from '../decode';
import type { PoolStatic } from '../discovery/pool-accounts';
import { LeaseLostError, type ClusterLease, type ClusterProgress, type FencedTx } from '../store/indexer-store';
import { ChainReader } from './chain-reader';
import type { ClusterIndexerDeps, ClusterRuntime, ClusterState } from './cluster-runtime';
import { clusterStatus, isReady, type ClusterStatus } from './cluster-status';
import { cycleRetryDelay } from './cycle-plan';
import { CycleOpener } from './cycle-opener';
import { CycleRunner, HoldingForMissing } from './cycle-runner';
import { GapLedger } from './gap-ledger';
import { IndexerObserver } from './indexer-observer';
import { MetadataRefresher } from './metadata-refresher';
import { SnapshotReader } from './snapshot-reader';

export type { ClusterIndexerDeps } from './cluster-runtime';
export type { ClusterStatus } from './cluster-status';

/**
 * One cluster's indexer: backfill, then live tail, in CYCLES. A cycle indexes every transaction of
 * both Hadron programs in (cursor, C], in chain order, where C is the slot of an account snapshot
 * (or just the head when no account needs reading). Events are appended, and only then does the
 * cursor (with the per-pool state in effect) move, chunk by chunk, in one DB transaction.
 *
 * Two modes. LOOKAHEAD (a batch that fits one chunk — the live tail): every transaction is fetched
 * before any is processed, so account changes are placed at the transaction that wrote them
 * (attribution.ts). AT-TARGET (the backfill, or catching up after a pause): chunks stream; pools
 * are announced first, and what the snapshot at C says takes effect at C.
 *
 * A cycle with a snapshot is persisted before its first event is appended, so a crash at any point
 * re-derives exactly the same events (same ids, same payloads) on restart.
 *
 * This class is the loop and its I/O; the steps are modules: chain-reader (list, fetch), snapshot-reader,
 * cycle-plan (pure decisions), derive-events (pure decode → build), cycle-runner (append + commit),
 * held-replay, gap-ledger, metadata-refresher, indexer-observer (metrics, progress logs).
 */

/** After losing the cluster lock, wait longer than a standby's poll (1 s) before trying again: a healthy standby takes over first. */
const LOST_LOCK_STEP_BACK_MS = 2500;
/** While the RPC serves another chain than the index's, how often it is asked again. */
const CHAIN_RECHECK_MS = 30_000;

export class ClusterIndexer implements ClusterRuntime {
  readonly cluster: Cluster;
  readonly now: () => number;
  readonly log: Logger;
  readonly observer: IndexerObserver;
  readonly state: ClusterState;
  private lastError: string | null = null;
  /** Why this indexer refuses to index: its RPC serves another chain than the index's (verifyChain); null otherwise. */
  private wrongChain: string | null = null;
  private cycleFailures = 0;
  /** Holds the cluster lock (a standby process is never ready). */
  private active = false;
  /** The cluster lock while held: every append and cursor commit is fenced by its epoch (`fenced`). */
  private lease?: ClusterLease;
  private running?: Promise<void>;
  private wakeUp?: () => void;
  /**
   * A websocket notification arrived since the current cycle read the head: the transaction it
   * announces may lie past that cycle's target, so the poll after it must not sleep.
   */
  private poked = false;
  private readonly chain: ChainReader;
  private readonly snapshots: SnapshotReader;
  private readonly gaps: GapLedger;
  private readonly metadata: MetadataRefresher;
  private readonly runner: CycleRunner;
  private readonly opener: CycleOpener;

  constructor(readonly d: ClusterIndexerDeps) {
    this.cluster = d.settings.cluster;
    this.now = d.now ?? Date.now;
    this.log = d.log.child({ cluster: this.cluster });
    this.state = {
      progress: undefined as unknown as ClusterProgress, // set by reload() in start()
      ctx: undefined as unknown as DecodeContext,
      held: new Map<string, PoolStatic>(),
      observedThrough: null,
      lastProgressAt: this.now(),
      stopping: false,
      snapshotDueAt: 0,
      lastDiscoveryAt: Number.NEGATIVE_INFINITY,
    };
    this.observer = new IndexerObserver(this.cluster, d.metrics, this.log, () => this.status());
    this.chain = new ChainReader({
      ...d,
      cluster: this.cluster,
      observer: this.observer,
      progress: () => this.state.progress,
      stopping: () => this.state.stopping,
    });
    this.snapshots = new SnapshotReader(this);
    const admits = (pools: ReadonlyMap<string, unknown>) => (config: string | null) => config === null || pools.has(config) || !this.state.held.has(config);
    this.gaps = new GapLedger(this, admits);
    this.metadata = new MetadataRefresher(this);
    this.runner = new CycleRunner(this, this.chain, this.snapshots, this.gaps, admits);
    this.opener = new CycleOpener(this, this.chain, this.snapshots, this.runner);
  }

  async start(): Promise<void> {
    await this.reload();
    this.running = this.supervise();
  }

  /**
   * Runs the loop until stop(); a failure outside a cycle (e.g. the database lost while taking
   * over the cluster) is retried with backoff rather than left to end the process.
   */
  private async supervise(): Promise<void> {
    let failures = 0;
    while (!this.state.stopping) {
      try {
        await this.loop(); // returns when stopping, or having given the cluster up: stand by again
        failures = 0;
      } catch (e) {
        failures++;
        this.active = false;
        this.lastError = (e as Error).message;
        const delay = cycleRetryDelay(failures);
        this.log.warn({ err: (e as Error).message, failures, retryInMs: delay }, 'indexer loop failed; starting over');
        await this.sleep(delay);
      }
    }
  }

  async stop(): Promise<void> {
    this.state.stopping = true;
    this.wakeUp?.();
    // Whatever RPC call is in flight (possibly backing off against a dead endpoint) is abandoned:
    // nothing is committed past the last durable chunk, so the restart resumes exactly there.
    this.d.rpc.close();
    await this.running;
  }

  /** Wake the live tail now (a websocket notification); during a cycle, the next poll follows it at once. */
  poke(): void {
    this.poked = true;
    this.wakeUp?.();
  }

  status(): ClusterStatus {
    const { progress, observedThrough } = this.state;
    return clusterStatus({
      cluster: this.cluster,
      now: this.now(),
      headSlot: this.observer.headSlot,
      cursorSlot: observedThrough ?? progress?.throughSlot ?? null,
      backfillDone: progress?.backfillDone ?? false,
      gaps: this.gaps.count,
      pools: progress?.pools.size ?? 0,
      lastError: this.lastError,
      wrongChain: this.wrongChain,
      cycleFailures: this.cycleFailures,
      lastProgressAt: this.state.lastProgressAt,
      active: this.active,
      heldPools: this.state.held.size,
      indexedBlockTime: this.observer.indexedBlockTime,
      rpcFailingSeconds: this.d.rpc.failingSeconds(this.now()),
    });
  }

  /** Serving current data (cluster-status.ts isReady). */
  ready(): boolean {
    return isReady(this.status(), this.now() - this.state.lastProgressAt, this.d.settings);
  }

  private async loop(): Promise<void> {
    const lock = await this.acquireClusterLock();
    if (!lock) return;
    try {
      await this.index();
    } finally {
      this.active = false;
      this.lease = undefined;
      await lock.release();
    }
    // Lock lost (its connection failed): nothing more was appended (fenced); stand by and try again.
    if (lock.lost && !this.state.stopping) await this.sleep(LOST_LOCK_STEP_BACK_MS);
  }

  /** Waits (as a standby) until this process is the cluster's one active indexer. */
  private async acquireClusterLock(): Promise<ClusterLease | null> {
    let logged = false;
    while (!this.state.stopping) {
      const lock = await this.d.store.tryLockCluster(this.cluster).catch((e: Error) => {
        this.lastError = e.message;
        return null;
      });
      if (lock) {
        try {
          await this.reload(); // another process may have moved the cursor meanwhile
        } catch (e) {
          await lock.release();
          throw e;
        }
        if (logged) this.log.info({ epoch: lock.epoch.toString() }, 'cluster lock acquired: indexing');
        lock.onLost((e) => {
          this.log.warn({ err: e.message, epoch: lock.epoch.toString() }, 'cluster lock connection lost: appending stops; standing by');
          this.active = false;
          this.wakeUp?.();
        });
        this.lease = lock;
        this.active = !lock.lost;
        this.lastError = null;
        this.state.lastProgressAt = this.now();
        return lock;
      }
      if (!logged) this.log.warn('another indexer holds this cluster: standing by');
      logged = true;
      this.lastError = this.lastError ?? 'standby: another indexer process holds this cluster';
      await this.sleep(1000);
    }
    return null;
  }

  /**
   * Whether the RPC serves the chain this cluster's index was built from: its genesis hash, pinned
   * by the cluster's first indexer (indexer.chain). Another chain (an RPC URL for the wrong cluster,
   * a test validator reset) is refused before anything is listed or appended: its transactions would
   * enter the log as this cluster's, and its history would look like transactions listed late.
   */
  private async verifyChain(): Promise<boolean> {
    const genesis = await this.d.rpc.getGenesisHash();
    const pinned = await this.fenced((db) => this.d.store.pinnedGenesis(this.cluster, genesis, db));
    this.observer.wrongChain(pinned !== genesis);
    if (pinned === genesis) {
      if (this.wrongChain !== null) this.log.info({ genesis }, "the RPC serves the index's chain again: indexing");
      this.wrongChain = null;
      return true;
    }
    const why =
      `the RPC serves another chain (genesis ${genesis}) than the one this index of ${this.cluster} was built from (genesis ${pinned}): ` +
      `nothing is indexed until ${this.d.settings.rpcUrlVariable} points at that chain again (or the index is rebuilt in a new database)`;
    if (this.wrongChain === null) this.log.error({ genesis, pinned, recheckInMs: CHAIN_RECHECK_MS }, `refusing to index: ${why}`);
    this.wrongChain = why;
    this.lastError = why;
    return false;
  }

  private async index(): Promise<void> {
    let failures = 0;
    /** This holding of the cluster has found its RPC serving the index's chain (verifyChain). */
    let onChain = false;
    while (!this.state.stopping && this.lease && !this.lease.lost) {
      let busy = false;
      const startedAt = this.now();
      // Notifications before this point are covered by the head this cycle reads.
      this.poked = false;
      try {
        if (!onChain) {
          // Before anything is read for indexing: another chain is asked again every CHAIN_RECHECK_MS
          // (an RPC that does not answer fails like a cycle, below).
          if (!(await this.verifyChain())) {
            await this.sleepUnpoked(CHAIN_RECHECK_MS);
            continue;
          }
          onChain = true;
          // After a restart: the freshness of what is already indexed (one getBlock; unknown on failure).
          const { throughSlot } = this.state.progress;
          if (throughSlot !== null) this.observer.noteIndexedTime((await this.d.rpc.getBlockTime(throughSlot).catch(() => null)) ?? -1);
        }
        busy = await this.cycle();
        if (this.gaps.due()) await this.gaps.retry();
        // Between cycles only: a cycle in progress re-derives its events from the tokens it started with.
        if (this.state.progress.cycle === null && this.metadata.due()) await this.metadata.refresh();
        failures = 0;
        this.cycleFailures = 0;
        this.lastError = null;
      } catch (e) {
        if (this.state.stopping) break; // interrupted on purpose; the cursor is where the last commit left it
        if (e instanceof LeaseLostError || this.lease?.lost) {
          this.log.warn({ err: (e as Error).message }, "no longer the cluster's indexer: appending stopped");
          break;
        }
        // A cycle that committed chunks before failing made progress: its retry starts the backoff over.
        failures = this.state.lastProgressAt >= startedAt ? 1 : failures + 1;
        if (!(e instanceof HoldingForMissing)) this.cycleFailures++;
        this.lastError = (e as Error).message;
        this.observer.cycleFailed();
        const delay = cycleRetryDelay(failures);
        this.log.warn({ err: e, failures, retryInMs: delay }, 'indexing cycle failed; retrying from the cursor');
        await this.reload().catch((err: Error) => this.log.error({ err: err.message }, 'could not reload indexer state'));
        await this.opener.refreshHead();
        await this.sleep(delay);
        continue;
      }
      // Idle: the next poll is due pollMs after this one started (the head is read every pollMs, not
      // pollMs after the end of a cycle; a slow RPC still gets a quarter of it as a pause); at once
      // after a notification that came in during it.
      const { pollMs } = this.d.settings;
      if (!busy && !this.poked) await this.sleep(Math.max(pollMs / 4, startedAt + pollMs - this.now()));
    }
  }

  /**
   * An append and the indexer's writes that go with it, fenced by the cluster lease
   * (IndexerStore.fenced): refused (LeaseLostError) once this process no longer holds the cluster.
   */
  fenced<T>(fn: (db: FencedTx, epoch: bigint) => Promise<T>): Promise<T> {
    const lease = this.lease;
    if (!lease) return Promise.reject(new LeaseLostError(`cluster ${this.cluster}: not holding the cluster lock; not appending`));
    return this.d.store.fenced(lease, (db) => fn(db, lease.epoch));
  }

  /** Sleeps `ms` whatever websocket notifications come (poke); not past a stop or the cluster lost. */
  private async sleepUnpoked(ms: number): Promise<void> {
    const until = this.now() + ms;
    while (!this.state.stopping && this.lease && !this.lease.lost && this.now() < until) await this.sleep(until - this.now());
  }

  private sleep(ms: number): Promise<void> {
    if (this.state.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async reload(): Promise<void> {
    this.state.progress = await this.d.store.load(this.cluster);
    this.opener.rebuildContext();
    await this.gaps.reload();
    this.observer.reloaded({ gaps: this.gaps.count, pools: this.state.progress.pools.size, throughSlot: this.state.progress.throughSlot });
  }

  /** Runs (or resumes) one cycle; true when it indexed something (poll again at once). */
  private async cycle(): Promise<boolean> {
    const opened = await this.opener.open();
    if (!opened) return false;
    await this.runner.run(opened.cycle, opened.listing, opened.fetched);
    return opened.busy;
  }
}
