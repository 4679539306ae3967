import type { Cluster, HadronEvent } from '@hadron/contracts';
import { clipText, logList, type Logger } from '@hadron/platform';
import type { ClusterSettings } from '../config/indexer.config';
import { decodeContextOf, decodeTransaction, type DecodeContext, type DecodeProblem, type KnownPool, type TransactionFacts } from '../decode';
import type { AccountState, PoolStatic } from '../discovery/pool-accounts';
import { HADRON_PROGRAMS, type AccountsSnapshot, type PoolReader } from '../discovery/pool-reader';
import type { IndexerMetrics } from '../metrics/indexer-metrics';
import type { EventSink } from '../publish/event-publisher';
import type { ItemResult, SignatureInfo, SolanaRpc, WireTransaction } from '../source/solana-rpc';
import {
  LeaseLostError,
  type ClusterLease,
  type ClusterProgress,
  type FencedTx,
  type CycleRecord,
  type GapRow,
  type HeldTx,
  type IndexerStore,
  type NewPool,
  type ProgramCursor,
  type RecordedProblem,
} from '../store/indexer-store';
import { scanTransaction, type AdminScan } from './admin-scan';
import { attribute, splitChanged, type At, type PoolAttribution } from './attribution';
import { applyBlockPositions, mergeInChainOrder, slotAlignedChunks, slotsNeedingPositions, type ListedSignature, type TxRef } from './chain-order';
import { EventBuilder, type ObservationPosition } from './event-builder';
import { factsFor } from './held-pools';
import { tokenRenames } from './metadata-refresh';
import { fieldsMaybeSetInRange, lookbackOracleState, startFromSnapshot, type OracleStart } from './oracle-lookback';
import { adoptOracle, canonicalSplit, knownPoolOf, UNKNOWN_STATE, type PoolRecord, type TrackedState } from './pool-state';

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
 */

const GAP_BATCH = 100;
const MAX_GAP_DELAY_MS = 10 * 60_000;
const MAX_CYCLE_BACKOFF_MS = 30_000;
/** After losing the cluster lock, wait longer than a standby's poll (1 s) before trying again: a healthy standby takes over first. */
const LOST_LOCK_STEP_BACK_MS = 2500;
/** While a pool is held (its mint unreadable), its mints are read again at least this often. */
const HELD_RETRY_MS = 5_000;
const HELD_REPLAY_BATCH = 200;
/** A metadata refresh that failed is tried again after this long (or the interval, when shorter). */
const METADATA_RETRY_MS = 30_000;
/** Renames named in one log line (the rest are counted). */
const LOGGED_RENAMES = 5;

export interface ClusterIndexerDeps {
  settings: ClusterSettings;
  rpc: SolanaRpc;
  reader: PoolReader;
  store: IndexerStore;
  sink: EventSink;
  metrics: IndexerMetrics;
  log: Logger;
  now?: () => number;
}

export interface ClusterStatus {
  cluster: Cluster;
  headSlot: number;
  cursorSlot: number | null;
  slotLag: number | null;
  backfillDone: boolean;
  gaps: number;
  pools: number;
  lastError: string | null;
  /** Indexing cycles failed in a row (holding the cursor for a transaction not served yet is not a failure). */
  cycleFailures: number;
  /** Seconds since the cursor last moved, or a poll found nothing new. */
  secondsSinceProgress: number;
  /** False while another process holds this cluster (standby). */
  active: boolean;
  /** Pools discovered but held back: a mint did not read yet (indexer.problem `mint_unavailable`). */
  heldPools: number;
  /** Block time (unix s) of the newest indexed transaction; null until known. */
  indexedBlockTime: number | null;
  /** How old the newest indexed data is while behind the head (now − indexedBlockTime); 0 at the head; null when unknown. */
  lagSeconds: number | null;
  /** How long the RPC has given no good answer; 0 while healthy. */
  rpcFailingSeconds: number;
}

interface Snapshot {
  accounts: AccountsSnapshot;
  blockTime: number | null;
  newPools: Record<string, NewPool>;
}

/** A range listed in full: small enough to hold (the live tail), or one window of a paged range. */
interface Listing {
  kind: 'full';
  refs: TxRef[];
  /** Per program, the newest listed signature (any status) at or below the target. */
  newest: Map<string, ProgramCursor>;
  /** Per program, every listed signature (any status) at or below the target, newest first: a chunk moves the program's cursor to the newest at or below its end. */
  listed: Map<string, ProgramCursor[]>;
  /**
   * Successful transactions the RPC listed only now although their slot is already indexed: an
   * earlier listing missed them (a signature index behind its bank). They go to the gap ledger.
   */
  late: LateRef[];
}

/** A listed-late transaction, with the programs whose listing named it. */
type LateRef = TxRef & { programs: string[] };

/**
 * A range too large to hold (a backfill: millions of signatures on a busy day), kept as page
 * boundaries only — every page's last signature and slot, per program. It is processed in slot
 * windows, oldest first, each listed again between two boundaries (listWindow).
 */
interface PagedListing {
  kind: 'paged';
  target: number;
  /** Exclusive lower bound of the range (the cursor), null on the first run (range start bounds instead). */
  afterSlot: number | null;
  rangeStartSlot: number | null;
  rangeStartTime: number | null;
  /** Per program, the `until` the range was listed with. */
  until: Map<string, string | undefined>;
  /** Per program, the last signature of every full page, newest first. */
  boundaries: Map<string, ProgramCursor[]>;
  newest: Map<string, ProgramCursor>;
  late: LateRef[];
  /** Successful signatures listed (both programs; a transaction of both counts twice). */
  count: number;
  /** The oldest successful transaction of the range. */
  first: TxRef | null;
}

type RangeListing = Listing | PagedListing;

interface Fetched {
  refs: TxRef[];
  txs: Map<string, ItemResult<WireTransaction>>;
  /** Slots whose block the RPC will never serve (skipped / not in storage): list order kept, txIndex null. */
  problems: RecordedProblem[];
}

interface ChunkOutput {
  events: HadronEvent[];
  gaps: GapRow[];
  problems: RecordedProblem[];
  lastSignature: string | null;
  /** Events of pools whose program had a transaction in the gap ledger when they were built. */
  builtWithOpenGap: number;
  /** Transactions naming a held pool (their part of it waits for the pool). */
  held?: HeldTx[];
  /** Held pools announced now, their held transactions replayed. */
  released?: string[];
}

/** getBlock errors that do not pass with time: the node has no block for that slot. */
const BLOCK_GONE_CODES = new Set([-32007, -32009]);

/** The cursor holds for a listed transaction the RPC does not serve yet: a wait, not a failure. */
class HoldingForMissing extends Error {}

export class ClusterIndexer {
  private readonly cluster: Cluster;
  private progress!: ClusterProgress;
  private ctx!: DecodeContext;
  private snapshotDueAt = 0;
  private lastDiscoveryAt = Number.NEGATIVE_INFINITY;
  private headSlot = 0;
  private observedThrough: number | null = null;
  private gaps = 0;
  private lastError: string | null = null;
  private cycleFailures = 0;
  private lastProgressAt: number;
  private stopping = false;
  /** Holds the cluster lock (a standby process is never ready). */
  private active = false;
  /** The cluster lock while held: every append and cursor commit is fenced by its epoch (`fenced`). */
  private lease?: ClusterLease;
  private running?: Promise<void>;
  private wakeUp?: () => void;
  private nextGapCheck = 0;
  /** Block time of the newest indexed transaction (freshness: status, readiness body, gauges). */
  private indexedBlockTime: number | null = null;
  /** Token metadata of the known pools is read again from then on (at start: at once). */
  private metadataDueAt = 0;
  /** When each not-yet-served transaction first failed every retry (the gap grace period). */
  private readonly firstFailure = new Map<string, number>();
  private readonly unreadableSplitsLogged = new Set<string>();
  /** Pools discovered whose mint does not read yet: their transactions are held (held-pools.ts) until it does. */
  private readonly held = new Map<string, PoolStatic>();
  /** Open gap-ledger transactions per program that listed them. */
  private openGapPrograms = new Map<string, number>();
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly d: ClusterIndexerDeps) {
    this.cluster = d.settings.cluster;
    this.now = d.now ?? Date.now;
    this.log = d.log.child({ cluster: this.cluster });
    this.lastProgressAt = this.now();
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
    while (!this.stopping) {
      try {
        await this.loop(); // returns when stopping, or having given the cluster up: stand by again
        failures = 0;
      } catch (e) {
        failures++;
        this.active = false;
        this.lastError = (e as Error).message;
        const delay = Math.min(MAX_CYCLE_BACKOFF_MS, 500 * 2 ** Math.min(failures - 1, 10));
        this.log.warn({ err: (e as Error).message, failures, retryInMs: delay }, 'indexer loop failed; starting over');
        await this.sleep(delay);
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    // Whatever RPC call is in flight (possibly backing off against a dead endpoint) is abandoned:
    // nothing is committed past the last durable chunk, so the restart resumes exactly there.
    this.d.rpc.close();
    await this.running;
  }

  /** Wake the live tail now (a websocket notification). */
  poke(): void {
    this.wakeUp?.();
  }

  status(): ClusterStatus {
    const cursor = this.observedThrough ?? this.progress?.throughSlot ?? null;
    const slotLag = cursor === null ? null : Math.max(0, this.headSlot - cursor);
    return {
      cluster: this.cluster,
      headSlot: this.headSlot,
      cursorSlot: cursor,
      slotLag,
      backfillDone: this.progress?.backfillDone ?? false,
      gaps: this.gaps,
      pools: this.progress?.pools.size ?? 0,
      lastError: this.lastError,
      cycleFailures: this.cycleFailures,
      secondsSinceProgress: Math.round((this.now() - this.lastProgressAt) / 1000),
      active: this.active,
      heldPools: this.held.size,
      indexedBlockTime: this.indexedBlockTime,
      lagSeconds: slotLag === 0 ? 0 : this.indexedBlockTime === null ? null : Math.max(0, Math.round(this.now() / 1000 - this.indexedBlockTime)),
      rpcFailingSeconds: Math.round(this.d.rpc.failingSeconds(this.now())),
    };
  }

  /**
   * Serving current data: backfilled, close to the head, no gap, and actually moving — a cursor
   * stuck behind the head (a block the RPC never serves, an append that keeps failing) is not
   * ready even while the lag is still small.
   */
  ready(): boolean {
    const s = this.status();
    const { readyMaxSlotLag, readyMaxStallMs, readyMaxCycleErrors, readyMaxRpcFailingMs, readyMaxLagSeconds } = this.d.settings;
    const stalled = s.slotLag !== null && s.slotLag > 0 && this.now() - this.lastProgressAt > readyMaxStallMs;
    const rpcDown = s.rpcFailingSeconds * 1000 > readyMaxRpcFailingMs;
    const old = readyMaxLagSeconds > 0 && s.lagSeconds !== null && s.lagSeconds > readyMaxLagSeconds;
    return (
      this.active &&
      s.backfillDone &&
      s.slotLag !== null &&
      s.slotLag <= readyMaxSlotLag &&
      !old &&
      s.gaps === 0 &&
      s.heldPools === 0 &&
      s.cycleFailures < readyMaxCycleErrors &&
      !stalled &&
      !rpcDown
    );
  }

  // ---- loop ----------------------------------------------------------------------------------

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
    if (lock.lost && !this.stopping) await this.sleep(LOST_LOCK_STEP_BACK_MS);
  }

  /** Waits (as a standby) until this process is the cluster's one active indexer. */
  private async acquireClusterLock(): Promise<ClusterLease | null> {
    let logged = false;
    while (!this.stopping) {
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
        this.lastProgressAt = this.now();
        return lock;
      }
      if (!logged) this.log.warn('another indexer holds this cluster: standing by');
      logged = true;
      this.lastError = this.lastError ?? 'standby: another indexer process holds this cluster';
      await this.sleep(1000);
    }
    return null;
  }

  private async index(): Promise<void> {
    let failures = 0;
    // After a restart: the freshness of what is already indexed (one getBlock; unknown on failure).
    if (this.progress.throughSlot !== null) this.noteIndexedTime((await this.d.rpc.getBlockTime(this.progress.throughSlot).catch(() => null)) ?? -1);
    while (!this.stopping && this.lease && !this.lease.lost) {
      let busy = false;
      const startedAt = this.now();
      try {
        busy = await this.cycle();
        if (this.now() >= this.nextGapCheck) await this.retryGaps();
        // Between cycles only: a cycle in progress re-derives its events from the tokens it started with.
        if (this.progress.cycle === null && this.now() >= this.metadataDueAt) await this.refreshMetadata();
        failures = 0;
        this.cycleFailures = 0;
        this.lastError = null;
      } catch (e) {
        if (this.stopping) break; // interrupted on purpose; the cursor is where the last commit left it
        if (e instanceof LeaseLostError || this.lease?.lost) {
          this.log.warn({ err: (e as Error).message }, "no longer the cluster's indexer: appending stopped");
          break;
        }
        // A cycle that committed chunks before failing made progress: its retry starts the backoff over.
        failures = this.lastProgressAt >= startedAt ? 1 : failures + 1;
        if (!(e instanceof HoldingForMissing)) this.cycleFailures++;
        this.lastError = (e as Error).message;
        this.d.metrics.cycleErrors.inc({ cluster: this.cluster });
        const delay = Math.min(MAX_CYCLE_BACKOFF_MS, 500 * 2 ** Math.min(failures - 1, 10));
        this.log.warn({ err: e, failures, retryInMs: delay }, 'indexing cycle failed; retrying from the cursor');
        await this.reload().catch((err: Error) => this.log.error({ err: err.message }, 'could not reload indexer state'));
        await this.refreshHead();
        await this.sleep(delay);
        continue;
      }
      if (!busy) await this.sleep(this.d.settings.pollMs);
    }
  }

  /**
   * An append and the indexer's writes that go with it, fenced by the cluster lease
   * (IndexerStore.fenced): refused (LeaseLostError) once this process no longer holds the cluster.
   */
  private fenced<T>(fn: (db: FencedTx, epoch: bigint) => Promise<T>): Promise<T> {
    const lease = this.lease;
    if (!lease) return Promise.reject(new LeaseLostError(`cluster ${this.cluster}: not holding the cluster lock; not appending`));
    return this.d.store.fenced(lease, (db) => fn(db, lease.epoch));
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
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
    this.progress = await this.d.store.load(this.cluster);
    this.rebuildContext();
    this.gaps = await this.d.store.gapCount(this.cluster);
    this.openGapPrograms = await this.d.store.openGapsByProgram(this.cluster);
    this.d.metrics.gapLedger.set({ cluster: this.cluster }, this.gaps);
    this.d.metrics.pools.set({ cluster: this.cluster }, this.progress.pools.size);
    if (this.progress.throughSlot !== null) this.d.metrics.cursorSlot.set({ cluster: this.cluster }, this.progress.throughSlot);
  }

  private rebuildContext(extra: Iterable<NewPool> = []): void {
    const known = new Map<string, KnownPool>();
    for (const r of this.progress.pools.values()) known.set(r.static.config, knownPoolOf(r.static));
    for (const n of extra) known.set(n.static.config, knownPoolOf(n.static));
    for (const p of this.held.values()) if (!known.has(p.config)) known.set(p.config, knownPoolOf(p)); // decoded, to be set aside
    this.ctx = decodeContextOf(known);
  }

  // ---- one cycle -------------------------------------------------------------------------------

  /** Runs (or resumes) one cycle; true when it indexed something (poll again at once). */
  private async cycle(): Promise<boolean> {
    const resumed = this.progress.cycle;
    if (resumed) {
      this.log.info({ targetSlot: resumed.targetSlot, mode: resumed.mode }, 'resuming the cycle in progress');
      for (const p of Object.values(resumed.heldPools ?? {})) if (!this.progress.pools.has(p.config)) this.held.set(p.config, p);
      await this.refreshHead(); // the target is the saved one: the head moves on without it
      // A lookahead cycle is one batch, whatever its size now (late listings may have grown it).
      const listing = await this.list(resumed.targetSlot, resumed, resumed.mode === 'lookahead' ? Number.POSITIVE_INFINITY : this.d.settings.chunkTxs);
      this.rebuildContext(Object.values(resumed.newPools));
      const fetched = listing.kind === 'full' && resumed.mode === 'lookahead' ? await this.fetch(listing.refs) : null;
      if (fetched) this.holdForMissing(fetched);
      await this.run(resumed, listing, fetched);
      return true;
    }

    const first = this.progress.throughSlot === null;
    let snapshot: Snapshot | null = null;
    let target: number;
    if (first || this.now() >= this.snapshotDueAt) {
      snapshot = await this.takeSnapshot(this.now() - this.lastDiscoveryAt >= this.d.settings.refreshMs);
      target = snapshot.accounts.slot;
    } else {
      target = await this.d.rpc.getSlot();
    }
    this.noteHead(target);
    const range = first ? this.d.settings.start : null;
    const bounds = { rangeStartSlot: range && 'slot' in range ? range.slot : null, rangeStartTime: range && 'time' in range ? range.time : null };
    let listing = await this.list(target, bounds);

    let mode: CycleRecord['mode'];
    let fetched: Fetched | null = null;
    if (listing.kind === 'full') {
      mode = 'lookahead';
      fetched = await this.fetch(listing.refs);
      if (!snapshot) {
        const trigger = this.triggers(fetched);
        if (trigger) {
          snapshot = await this.takeSnapshot(trigger === 'discover', target);
          const more = await this.listFull(snapshot.accounts.slot, { ...bounds, afterSlot: target, until: listing.newest });
          const extra = await this.fetch(more.refs);
          fetched = {
            refs: [...fetched.refs, ...extra.refs],
            txs: new Map([...fetched.txs, ...extra.txs]),
            problems: [...fetched.problems, ...extra.problems],
          };
          const held = listing;
          listing = {
            kind: 'full',
            refs: [...held.refs, ...more.refs],
            newest: new Map([...held.newest, ...more.newest]),
            listed: new Map(
              HADRON_PROGRAMS.map(({ programId }) => [programId, [...(more.listed.get(programId) ?? []), ...(held.listed.get(programId) ?? [])]]),
            ),
            late: [...held.late, ...more.late],
          };
          target = snapshot.accounts.slot;
          this.noteHead(target);
        }
      }
    } else {
      mode = 'at-target';
      if (!snapshot) {
        snapshot = await this.takeSnapshot(true, target);
        target = snapshot.accounts.slot;
        listing = await this.list(target, bounds);
      }
    }

    // A lookahead batch holds for what the RPC does not serve yet BEFORE anything is derived from it and
    // saved with the cycle: the oracle state at the range start (lookback) must see every transaction.
    if (fetched) this.holdForMissing(fetched);

    if (!snapshot && listing.kind === 'full' && listing.refs.length === 0 && listing.late.length === 0) {
      this.observedThrough = target; // nothing new up to the head: the cursor is as good as there
      this.lastProgressAt = this.now();
      this.updateLag();
      return false;
    }

    const cycle: CycleRecord = {
      targetSlot: target,
      targetBlockTime: snapshot?.blockTime ?? null,
      mode,
      snapshot: snapshot?.accounts ?? null,
      newPools: snapshot?.newPools ?? {},
      rangeStartSlot: bounds.rangeStartSlot,
      rangeStartTime: bounds.rangeStartTime,
      discoveryPublished: false,
      heldPools: Object.fromEntries(this.held),
    };
    if (snapshot) {
      await this.lookback(cycle, fetched?.refs[0] ?? firstOf(listing), fetched);
      await this.fenced((db) => this.d.store.saveCycle(this.cluster, cycle, db));
      this.progress.cycle = cycle;
    }
    this.rebuildContext(Object.values(cycle.newPools));
    await this.run(cycle, listing, fetched);
    return listing.kind === 'paged' || listing.refs.length > 0;
  }

  /**
   * Why this batch needs a fresh account snapshot: a write to a pool account, or a pool we do not
   * know. A new Initialize is discovered at once; a swap or update naming a pool discovery did not
   * find (it would again, every poll) waits for the refresh interval.
   */
  private triggers(fetched: Fetched): 'discover' | 'refresh' | null {
    let refresh = false;
    let unknown = false;
    const watched = new Set<string>();
    for (const r of this.progress.pools.values())
      for (const a of [r.static.config, r.static.oracle, r.static.poolFeeConfig, r.static.globalFeeConfig]) watched.add(a);
    for (const ref of fetched.refs) {
      const res = fetched.txs.get(ref.signature);
      if (!res?.ok) continue;
      const scan = scanTransaction(res.value);
      if (scan.initializes.some((i) => !this.progress.pools.has(i.config))) return 'discover';
      const facts = decodeTransaction(res.value, this.ctx);
      if (facts.problems.some((p) => p.code === 'unknown_pool') || facts.events.some((e) => e.kind === 'oracle_update' && e.pool_config_via_registry === null))
        unknown = true;
      for (const a of scan.written) if (watched.has(a)) refresh = true;
    }
    if (unknown && this.now() - this.lastDiscoveryAt >= this.d.settings.refreshMs) return 'discover';
    return refresh ? 'refresh' : null;
  }

  // ---- reading the chain ---------------------------------------------------------------------

  /** Account snapshot of every known pool (and, with `discover`, of new ones) at a slot ≥ minSlot. */
  private async takeSnapshot(discover: boolean, minSlot?: number): Promise<Snapshot> {
    const statics = [...this.progress.pools.values()].map((r) => r.static);
    // Held pools are read again at every snapshot, discovery or not.
    const newStatics = new Map([...this.held].filter(([config]) => !this.progress.pools.has(config)));
    let min = minSlot;
    if (discover) {
      this.lastDiscoveryAt = this.now();
      const found = await this.d.reader.discover(minSlot);
      min = Math.max(min ?? 0, found.slot);
      for (const p of found.pools) if (!this.progress.pools.has(p.config)) newStatics.set(p.config, p);
    }
    const accounts = await this.d.reader.snapshot([...statics, ...newStatics.values()], min);
    await this.noteUnreadableSplits(accounts);
    const newPools: Record<string, NewPool> = {};
    const present = [...newStatics.values()].filter((p) => accounts.pools[p.config] !== undefined);
    if (present.length > 0) {
      const { tokens, unreadable } = await this.d.reader.tokenMetadata(
        present.flatMap((p) => [p.mintX, p.mintY]),
        accounts.slot,
      );
      for (const p of present) {
        const [x, y] = [tokens.get(p.mintX), tokens.get(p.mintY)];
        if (x && y) newPools[p.config] = { static: p, tokens: { x, y }, tracked: { ...UNKNOWN_STATE } };
        else await this.holdPool(p, [p.mintX, p.mintY].flatMap((m) => unreadable.get(m) ?? []).join('; '), accounts.slot);
      }
    }
    const blockTime = await this.d.rpc.getBlockTime(accounts.slot);
    this.snapshotDueAt = this.now() + (this.held.size > 0 ? Math.min(HELD_RETRY_MS, this.d.settings.refreshMs) : this.d.settings.refreshMs);
    if (Object.keys(newPools).length > 0)
      this.log.info(
        { slot: accounts.slot, newPools: logList(Object.keys(newPools)) },
        `${Object.keys(newPools).length} pool(s) discovered (all in indexer.pool)`,
      );
    return { accounts, blockTime, newPools };
  }

  /**
   * Token metadata of every known pool, read again (at start, then every metadataRefreshMs): a
   * token whose name, symbol or curated icon now reads differently gets a TokenMetadataChanged per
   * pool holding it, appended before the pools' records take the new tokens (later snapshots carry
   * them). A crash in between reads again at the restart and appends the rename again — harmless,
   * the projection sets the same names. A failed read is retried; it never holds the cursor.
   */
  private async refreshMetadata(): Promise<void> {
    const pools = [...this.progress.pools.values()];
    this.metadataDueAt = this.now() + this.d.settings.metadataRefreshMs;
    if (pools.length === 0) return;
    try {
      const read = await this.d.reader.tokenMetadata(
        pools.flatMap((p) => [p.static.mintX, p.static.mintY]),
        this.progress.throughSlot ?? undefined,
      );
      const renames = tokenRenames(pools, read.tokens);
      if (renames.length === 0) return;
      const at: ObservationPosition = { slot: read.slot, blockTime: await this.d.rpc.getBlockTime(read.slot), signature: null, txIndex: null };
      const builder = new EventBuilder(this.cluster, this.progress.pools);
      const events = renames.flatMap((r) => r.renamed.map((token) => builder.tokenMetadataChanged(r.pool, token, at)));
      await this.fenced(async (db, epoch) => {
        await this.d.sink.append(events, epoch);
        await this.d.store.updatePoolTokens(
          this.cluster,
          renames.map((r) => r.pool),
          db,
        );
      });
      for (const r of renames) this.progress.pools.set(r.pool.static.config, r.pool);
      this.countEvents(events);
      const renamed = events.slice(0, LOGGED_RENAMES).map((e) => ({ pool: e.pool, mint: e.data.mint, symbol: e.data.symbol, name: e.data.name }));
      this.log.info({ slot: read.slot, events: events.length, pools: renames.length, renamed }, 'token metadata changed: names updated');
    } catch (e) {
      if (this.stopping) return;
      this.metadataDueAt = this.now() + Math.min(METADATA_RETRY_MS, this.d.settings.metadataRefreshMs);
      this.log.warn({ err: (e as Error).message, retryInMs: this.metadataDueAt - this.now() }, 'token metadata refresh failed; trying again later');
    }
  }

  /**
   * A pool whose mint does not read: held (not announced, its transactions set aside) while every
   * other pool goes on; visible as a recorded problem, a gauge, the status and readiness.
   */
  private async holdPool(p: PoolStatic, why: string, slot: number): Promise<void> {
    if (this.held.has(p.config)) return;
    this.held.set(p.config, p);
    this.d.metrics.heldPools.set({ cluster: this.cluster }, this.held.size);
    const message = `${why}: decimals are needed before the pool is announced; its transactions are held until the mint reads`;
    this.log.warn({ pool: p.config, why: clipText(why, 512) }, 'pool held: a mint does not read yet; indexing every other pool meanwhile');
    await this.d.store.recordProblems(this.cluster, [{ code: 'mint_unavailable', message, event_id: `${p.config}:mints`, pool_config: p.config, slot }]);
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
        event_id: `${a.feeConfig}:fee_split`,
        pool_config: config,
        slot: accounts.slot,
      }));
    this.d.metrics.unreadableSplits.set({ cluster: this.cluster }, problems.length);
    const fresh = problems.filter((p) => !this.unreadableSplitsLogged.has(p.event_id));
    if (fresh.length === 0) return;
    this.log.warn(
      { problems: logList(fresh.map((p) => clipText(p.message, 256))) },
      `fee split not readable under the assumed layout for ${fresh.length} pool(s): they use the default recipient (all in indexer.problem)`,
    );
    await this.d.store.recordProblems(this.cluster, fresh);
    for (const p of fresh) this.unreadableSplitsLogged.add(p.event_id);
  }

  /**
   * The oracle state in effect at the start of the range, for pools first seen now
   * (oracle-lookback.ts): the read at C for each field nothing in the range sets — known for all
   * fetched transactions (lookahead), or when the oracle's last update is older than the range
   * (at-target) — else the newest setter before the range, from the oracle's history.
   */
  private async lookback(cycle: CycleRecord, first: TxRef | null, fetched: Fetched | null): Promise<void> {
    if (!first || !cycle.snapshot) return;
    const txs = fetched ? fetched.refs.map((r) => fetched.txs.get(r.signature)).map((res) => (res?.ok ? res.value : null)) : null;
    for (const pool of Object.values(cycle.newPools)) {
      const found = await this.oracleAtStart(pool.static, cycle.snapshot, first, txs);
      pool.tracked = { ...pool.tracked, midpriceQ32: found.midpriceQ32, spreadFactorQ32: found.spreadFactorQ32 };
    }
  }

  /** The pool's oracle state in effect before `first`, a range's first transaction (`txs`: the range, when fetched). */
  private async oracleAtStart(
    pool: PoolStatic,
    snapshot: AccountsSnapshot,
    first: TxRef,
    txs: readonly (WireTransaction | null)[] | null,
  ): Promise<OracleStart> {
    const ctx = decodeContextOf(new Map([[pool.config, knownPoolOf(pool)]]));
    const setInRange = fieldsMaybeSetInRange({ firstSlot: first.slot, txs }, pool, ctx, snapshot.pools[pool.config]?.oracle);
    let found = startFromSnapshot(snapshot, pool, setInRange);
    if (found.midpriceQ32 === null || found.spreadFactorQ32 === null) found = await lookbackOracleState(this.d.rpc, pool, first, ctx, found);
    const unknown = (['midprice', 'spread'] as const).filter((f) => (f === 'midprice' ? found.midpriceQ32 : found.spreadFactorQ32) === null);
    for (const field of unknown) this.d.metrics.oracleUnknownAtStart.inc({ cluster: this.cluster, field });
    if (unknown.length > 0)
      this.log.warn(
        { pool: pool.config, oracle: pool.oracle, unknown, fromSlot: first.slot },
        'oracle value in effect before the range not found: swaps carry null until an update sets it',
      );
    return found;
  }

  /**
   * Successful signatures of both programs in (cursor, target], chain order. The first run lists
   * back to the backfill start (a slot or a block time); later ones stop at the cursor (`until`).
   * Up to `keep` signatures the range is held in full; past that only page boundaries are kept
   * (PagedListing) and the range is listed again window by window as it is processed.
   */
  private async list(
    target: number,
    bounds: { rangeStartSlot: number | null; rangeStartTime: number | null; afterSlot?: number; until?: ReadonlyMap<string, ProgramCursor> },
    keep: number = this.d.settings.chunkTxs,
  ): Promise<RangeListing> {
    const pageSize = this.d.settings.signaturePage;
    const afterSlot = bounds.afterSlot ?? this.progress.throughSlot;
    let lists: ListedSignature[][] | null = [];
    let listed: Map<string, ProgramCursor[]> | null = new Map();
    let held = 0;
    const newest = new Map<string, ProgramCursor>();
    const boundaries = new Map<string, ProgramCursor[]>();
    const untils = new Map<string, string | undefined>();
    const late = new Map<string, LateRef>();
    let count = 0;
    let first: TxRef | null = null;
    for (const { programId } of HADRON_PROGRAMS) {
      const until = afterSlot === null ? undefined : (bounds.until ?? this.progress.programCursors).get(programId)?.signature;
      untils.set(programId, until);
      const list: ListedSignature[] = [];
      const all: ProgramCursor[] = [];
      const pages: ProgramCursor[] = [];
      // minContextSlot: a node that has not reached the target yet answers -32016 (retried) instead of listing less.
      for await (const page of this.signaturePages(programId, { until, minContextSlot: target })) {
        let done = false;
        for (const s of page) {
          if (s.slot > target) continue;
          const ok = s.err === null || s.err === undefined;
          if (afterSlot !== null && s.slot <= afterSlot) {
            // The RPC stops at `until` (the program's cursor) by itself: what it still returns at or
            // below the indexed slot was not listed when that slot was indexed.
            if (until === undefined) {
              done = true;
              break;
            }
            all.push({ slot: s.slot, signature: s.signature });
            if (ok) {
              const known = late.get(s.signature);
              if (known) known.programs.push(programId);
              else late.set(s.signature, { signature: s.signature, slot: s.slot, blockTime: s.blockTime, txIndex: null, programs: [programId] });
            }
            continue;
          }
          if (afterSlot === null && beforeRangeStart(s, bounds)) {
            done = true;
            break;
          }
          if (!newest.has(programId)) newest.set(programId, { slot: s.slot, signature: s.signature });
          if (ok) {
            count++;
            if (!first || s.slot < first.slot) first = { signature: s.signature, slot: s.slot, blockTime: s.blockTime, txIndex: null };
          }
          if (lists) {
            all.push({ slot: s.slot, signature: s.signature });
            list.push(s);
            held++;
          }
        }
        if (page.length === pageSize) pages.push({ slot: page[page.length - 1].slot, signature: page[page.length - 1].signature });
        if (lists && held > keep) {
          // Too large to hold: from here on only page boundaries.
          lists = null;
          listed = null;
          list.length = 0;
          all.length = 0;
        }
        if (done) break;
      }
      boundaries.set(programId, pages);
      if (lists && listed) {
        lists.push(list);
        listed.set(programId, all);
      }
    }
    if (this.stopping) throw new Error('stopping');
    const lateRefs = [...late.values()].sort((a, b) => a.slot - b.slot);
    if (lists && listed) return { kind: 'full', refs: mergeInChainOrder(lists), newest, listed, late: lateRefs };
    const { rangeStartSlot, rangeStartTime } = bounds;
    return { kind: 'paged', target, afterSlot, rangeStartSlot, rangeStartTime, until: untils, boundaries, newest, late: lateRefs, count, first };
  }

  /** A range that must be held in full (one lookahead batch). */
  private async listFull(target: number, bounds: Parameters<ClusterIndexer['list']>[1]): Promise<Listing> {
    const listing = await this.list(target, bounds, Number.POSITIVE_INFINITY);
    if (listing.kind !== 'full') throw new Error('unreachable: a listing without a size limit is held in full');
    return listing;
  }

  /**
   * The range as slot windows, oldest first. A paged range's window ends are its page boundaries'
   * slots (and the target): each window holds about a page per program, listed again from the
   * boundary above it, so memory stays bounded however long the range.
   */
  private async *windows(listing: RangeListing): AsyncGenerator<Listing> {
    if (listing.kind === 'full') {
      yield listing;
      return;
    }
    const ends = [...new Set([...[...listing.boundaries.values()].flat().map((b) => b.slot), listing.target])]
      .filter((slot) => slot <= listing.target)
      .sort((a, b) => a - b);
    let lo = listing.afterSlot ?? -1;
    for (const hi of ends) {
      if (hi <= lo) continue;
      const lists: ListedSignature[][] = [];
      const listed = new Map<string, ProgramCursor[]>();
      for (const { programId } of HADRON_PROGRAMS) {
        const entries = await this.listWindow(listing, programId, lo, hi);
        lists.push(entries);
        listed.set(
          programId,
          entries.map((e) => ({ slot: e.slot, signature: e.signature })),
        );
      }
      this.d.metrics.listingWindow.observe(
        { cluster: this.cluster },
        lists.reduce((n, l) => n + l.length, 0),
      );
      yield { kind: 'full', refs: mergeInChainOrder(lists), newest: new Map(), listed, late: [] };
      lo = hi;
    }
  }

  /** One program's signatures with slot in (lo, hi], newest first, listed from its page boundary just above hi. */
  private async listWindow(listing: PagedListing, programId: string, lo: number, hi: number): Promise<ListedSignature[]> {
    // Boundaries are newest first: start from the oldest one still above the window.
    const before = (listing.boundaries.get(programId) ?? []).filter((b) => b.slot > hi).pop()?.signature;
    const out: ListedSignature[] = [];
    pages: for await (const page of this.signaturePages(programId, { before, until: listing.until.get(programId), minContextSlot: listing.target })) {
      for (const s of page) {
        if (s.slot > hi) continue;
        if (s.slot <= lo || (listing.afterSlot === null && beforeRangeStart(s, listing))) break pages;
        out.push(s);
      }
    }
    if (this.stopping) throw new Error('stopping');
    return out;
  }

  /** A program's getSignaturesForAddress pages, newest first, until a short page (or the caller stops reading, or the indexer stops). */
  private async *signaturePages(programId: string, opts: { before?: string; until?: string; minContextSlot: number }): AsyncGenerator<SignatureInfo[]> {
    const limit = this.d.settings.signaturePage;
    let before = opts.before;
    while (!this.stopping) {
      const page = await this.d.rpc.getSignaturesForAddress(programId, { before, until: opts.until, limit, minContextSlot: opts.minContextSlot });
      yield page;
      if (page.length < limit) return;
      before = page[page.length - 1].signature;
    }
  }

  /** Block positions (when needed) and the transactions, batched; failures stay in the map. */
  private async fetch(refs: readonly TxRef[]): Promise<Fetched> {
    if (refs.length === 0) return { refs: [], txs: new Map(), problems: [] };
    const slots = slotsNeedingPositions(refs, this.d.settings.positions);
    const positions = new Map<number, string[]>();
    const problems: RecordedProblem[] = [];
    if (slots.length > 0) {
      const blocks = await this.d.rpc.getBlockSignatures(slots);
      blocks.forEach((b, i) => {
        if (b.ok) return void positions.set(slots[i], b.value);
        // A block the node will never serve: the listing's order stands (txIndex unknown) rather than retrying forever.
        if (b.failure.details.code !== undefined && BLOCK_GONE_CODES.has(b.failure.details.code)) {
          problems.push({
            code: 'positions_unavailable',
            message: `${b.failure.message}: transactions kept in listing order, txIndex null`,
            event_id: `slot:${slots[i]}:positions`,
            pool_config: null,
            slot: slots[i],
          });
          return;
        }
        throw b.failure; // positions decide event content: no guessing, retry the cycle
      });
    }
    const ordered = applyBlockPositions([...refs], positions);
    const results = await this.d.rpc.getTransactions(ordered.map((r) => r.signature));
    return { refs: ordered, txs: new Map(ordered.map((r, i) => [r.signature, results[i]])), problems };
  }

  // ---- processing ----------------------------------------------------------------------------

  private async run(cycle: CycleRecord, listing: RangeListing, fetched: Fetched | null): Promise<void> {
    const snapshot = cycle.snapshot;
    const builder = (pools: ReadonlyMap<string, PoolRecord>) => new EventBuilder(this.cluster, pools);
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

    // Work on copies: the in-memory state changes only once the chunk is durable (commitChunk).
    const pools = new Map([...this.progress.pools].map(([k, v]) => [k, structuredClone(v)]));
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
      const newPools = Object.keys(cycle.newPools).filter((c) => pools.has(c) && !this.progress.pools.has(c));
      if (!cycle.discoveryPublished && newPools.length > 0) {
        const events = newPools.flatMap((c) => builder(pools).discovered(pools.get(c)!, snapshot!.pools[c], at, oracleOf(snapshot!.pools[c].oracle)));
        await this.fenced((_db, epoch) => this.d.sink.append(events, epoch));
        this.countEvents(events);
      }
      cycle.discoveryPublished = true;
      released = await this.replayHeld(cycle, pools);
      const total = listing.kind === 'full' ? listing.refs.length : listing.count;
      const progress = new ProgressLine(this.log, total, this.d.settings.progressMs, this.now);
      let done = 0;
      for await (const window of this.windows(listing)) {
        for (const chunk of slotAlignedChunks(window.refs, this.d.settings.chunkTxs)) {
          if (this.stopping) return;
          const f = await this.fetch(chunk);
          this.holdForMissing(f);
          const out = this.processChunk(f, pools, null, snapshot, builder(pools), window);
          done += chunk.length;
          await commit(chunk[chunk.length - 1].slot, out, window, false);
          progress.update(done);
          this.d.metrics.backfillRatio.set({ cluster: this.cluster }, total === 0 ? 1 : Math.min(1, done / total));
        }
      }
      if (this.stopping) return;
      const end = snapshot ? this.applyAtEnd(snapshot, cycle, pools, builder(pools), at, new Set(newPools)) : [];
      await commit(cycle.targetSlot, { events: end, gaps: [], problems: [], lastSignature: null, builtWithOpenGap: 0 }, endOf(listing), true);
      progress.finish(done);
      return;
    }

    // lookahead: one chunk, every transaction already fetched (and held for: cycle())
    if (listing.kind !== 'full' || !fetched) throw new Error('unreachable: a lookahead cycle is listed in full and fetched');
    const f = fetched;
    released = await this.replayHeld(cycle, pools);
    const plan = snapshot ? this.plan(snapshot, pools, f) : null;
    const out = this.processChunk(f, pools, plan, snapshot, builder(pools), listing);
    if (snapshot) out.events.push(...this.applyAtEnd(snapshot, cycle, pools, builder(pools), at, new Set(), plan!));
    await commit(cycle.targetSlot, out, listing, true);
  }

  /**
   * A transaction the RPC listed but will not serve, even after every retry, is usually a lagging
   * node: hold the cursor (retry the chunk) for the grace period so its events land in order and
   * exact. Past the grace period the cursor moves on and the transaction goes to the gap ledger.
   */
  private holdForMissing(f: Fetched): void {
    const now = this.now();
    const young: string[] = [];
    for (const [signature, res] of f.txs) {
      if (res.ok) {
        this.firstFailure.delete(signature);
        continue;
      }
      const first = this.firstFailure.get(signature) ?? now;
      this.firstFailure.set(signature, first);
      if (now - first < this.d.settings.gapGraceMs) young.push(signature);
    }
    if (young.length > 0)
      throw new HoldingForMissing(
        `waiting for ${young.length} transaction(s) the RPC listed but does not serve yet (e.g. ${young[0]}); gap ledger after ${this.d.settings.gapGraceMs / 1000} s`,
      );
    for (const signature of f.txs.keys()) this.firstFailure.delete(signature);
  }

  /** Facts about `config` may be built now: it names no pool, or an announced one (in `pools`), or one not held. */
  private notHeld(pools: ReadonlyMap<string, unknown>): (config: string | null) => boolean {
    return (config) => config === null || pools.has(config) || !this.held.has(config);
  }

  /**
   * Held pools this cycle announces: their held transactions, in chain order, replayed for that
   * pool alone from the oracle state in effect before the first of them, and appended. Their rows
   * go with the cycle's first commit; a crash before it replays the same events again (same ids).
   */
  private async replayHeld(cycle: CycleRecord, pools: Map<string, PoolRecord>): Promise<{ released: string[]; problems: RecordedProblem[] }> {
    const released: string[] = [];
    const problems: RecordedProblem[] = [];
    for (const config of Object.keys(cycle.newPools)) {
      const r = pools.get(config);
      if (!r || !cycle.snapshot || !this.held.has(config)) continue;
      released.push(config);
      const rows = await this.d.store.heldTxs(this.cluster, config);
      if (rows.length === 0) continue;
      const start = await this.oracleAtStart(r.static, cycle.snapshot, rows[0], null);
      const alone = new Map([
        [config, { ...structuredClone(r), tracked: { ...UNKNOWN_STATE, midpriceQ32: start.midpriceQ32, spreadFactorQ32: start.spreadFactorQ32 } }],
      ]);
      const builder = new EventBuilder(this.cluster, alone);
      for (let i = 0; i < rows.length; i += HELD_REPLAY_BATCH) {
        const batch = rows.slice(i, i + HELD_REPLAY_BATCH);
        const results = await this.d.rpc.getTransactions(batch.map((h) => h.signature));
        const events: HadronEvent[] = [];
        batch.forEach((h, k) => {
          const res = results[k];
          if (!res.ok) throw res.failure; // a hole would misplace the pool's state: retry the cycle
          const own = factsFor(decodeTransaction(res.value, this.ctx), scanTransaction(res.value).initializes, (c) => c === config);
          const built = builder.transaction(
            own.facts,
            { signature: h.signature, slot: h.slot, blockTime: res.value.blockTime ?? h.blockTime, txIndex: h.txIndex },
            own.initializes,
          );
          events.push(...built.events);
          problems.push(...built.problems.map((p) => ({ ...p, slot: h.slot })));
        });
        await this.fenced((_db, epoch) => this.d.sink.append(events, epoch));
        this.countEvents(events);
      }
      this.log.info({ pool: config, replayed: rows.length }, 'held pool announced: its held transactions indexed');
    }
    return { released, problems };
  }

  /** Lookahead attribution for every pool the snapshot read. */
  private plan(snapshot: AccountsSnapshot, pools: ReadonlyMap<string, PoolRecord>, f: Fetched): Map<string, PoolAttribution> {
    const scans = f.refs.map((r) => {
      const res = f.txs.get(r.signature);
      return res?.ok ? scanTransaction(res.value) : null;
    });
    const inputs = [...pools.values()]
      .filter((r) => snapshot.pools[r.static.config] !== undefined)
      .map((r) => ({ pool: r.static, observed: snapshot.pools[r.static.config], published: this.progress.pools.has(r.static.config) ? r.published : null }));
    return new Map(attribute(inputs, scans).map((a) => [a.config, a]));
  }

  private processChunk(
    f: Fetched,
    pools: Map<string, PoolRecord>,
    plan: Map<string, PoolAttribution> | null,
    snapshot: AccountsSnapshot | null,
    builder: EventBuilder,
    listing: Listing,
  ): ChunkOutput {
    const events: HadronEvent[] = [];
    const gaps: GapRow[] = [];
    const problems: RecordedProblem[] = [...f.problems];
    let lastSignature: string | null = null;
    // Programs with a transaction in the gap ledger: their pools' events may miss its effect (README: gaps).
    const gapPrograms = new Set([...this.openGapPrograms].filter(([, n]) => n > 0).map(([p]) => p));
    let builtWithOpenGap = 0;
    const held: HeldTx[] = [];
    const notHeld = this.notHeld(pools);
    for (const [i, ref] of f.refs.entries()) {
      lastSignature = ref.signature;
      const res = f.txs.get(ref.signature);
      if (!res?.ok) {
        const error = res ? `${res.failure.message} (after ${res.attempts} attempts)` : 'not fetched';
        const programs = programsListing(listing, ref.signature);
        gaps.push({ signature: ref.signature, slot: ref.slot, txIndex: ref.txIndex, attempts: 0, lastError: error, state: trackedStates(pools), programs });
        for (const p of programs) gapPrograms.add(p);
        continue;
      }
      const before = events.length;
      const tx = res.value;
      const scan: AdminScan = scanTransaction(tx);
      const pos = { signature: ref.signature, slot: ref.slot, blockTime: tx.blockTime ?? ref.blockTime, txIndex: ref.txIndex };
      const own = factsFor(decodeTransaction(tx, this.ctx), scan.initializes, notHeld);
      const facts: TransactionFacts = own.facts;
      for (const pool of own.refused)
        held.push({ pool, signature: ref.signature, slot: ref.slot, position: i, txIndex: ref.txIndex, blockTime: pos.blockTime });
      const obs: ObservationPosition = { slot: ref.slot, blockTime: pos.blockTime, signature: ref.signature, txIndex: ref.txIndex };
      // A new pool nothing in the batch wrote: what was read at C held before this transaction too.
      if (plan && snapshot) {
        for (const a of plan.values()) {
          if (a.discoverAt !== i || !a.discoverBefore) continue;
          const r = pools.get(a.config)!;
          const state = snapshot.pools[a.config];
          events.push(...builder.discovered(r, state, obs, oracleOf(r.tracked)));
          r.tracked.split = state.fee ? canonicalSplit(state.fee.split) : null;
        }
      }
      const built = builder.transaction(facts, pos, own.initializes);
      events.push(...built.events);
      problems.push(...built.problems.map((p) => ({ ...p, slot: ref.slot })));
      this.d.metrics.transactions.inc({ cluster: this.cluster });
      // A transaction that may have written a fee config: the split in effect is unknown from here…
      for (const r of pools.values()) {
        const observedFee = snapshot?.pools[r.static.config]?.feeConfig;
        if (scan.written.has(r.static.config) || scan.written.has(r.published.feeConfig) || (observedFee !== undefined && scan.written.has(observedFee)))
          r.tracked.split = null;
      }
      // …until the snapshot says what it is after the last such write (lookahead attribution).
      if (plan && snapshot) {
        for (const a of plan.values()) {
          const r = pools.get(a.config)!;
          const state = snapshot.pools[a.config];
          if (a.discoverAt === i && !a.discoverBefore) events.push(...builder.discovered(r, state, obs, oracleOf(r.tracked)));
          if (a.configChangeAt === i) events.push(builder.configChanged(r, state, obs, oracleOf(r.tracked)));
          if (a.splitAt === i && !a.discoverBefore) {
            if (a.discoverAt === null && splitChanged(state, r.published)) events.push(builder.feeSplit(r, state, obs));
            r.tracked.split = state.fee ? canonicalSplit(state.fee.split) : null;
          }
        }
      }
      if (gapPrograms.size > 0) builtWithOpenGap += events.slice(before).filter((e) => gapPrograms.has(pools.get(e.pool)?.static.programId ?? '')).length;
    }
    return { events, gaps, problems, lastSignature, builtWithOpenGap, held };
  }

  /** What the snapshot at C says takes effect at C: remaining changes, the oracle state, the split. */
  private applyAtEnd(
    snapshot: AccountsSnapshot,
    cycle: CycleRecord,
    pools: Map<string, PoolRecord>,
    builder: EventBuilder,
    at: ObservationPosition,
    announced: ReadonlySet<string>,
    plan?: Map<string, PoolAttribution>,
  ): HadronEvent[] {
    const events: HadronEvent[] = [];
    for (const r of pools.values()) {
      const state = snapshot.pools[r.static.config];
      if (!state) continue;
      const isNew = !this.progress.pools.has(r.static.config);
      const a = plan?.get(r.static.config);
      const oracle = oracleOf(state.oracle);
      if (isNew && !announced.has(r.static.config) && (!a || a.discoverAt === 'end')) events.push(...builder.discovered(r, state, at, oracle));
      if (!isNew) {
        const configAt: At | null = a ? a.configChangeAt : configChangedAtEnd(state, r.published) ? 'end' : null;
        if (configAt === 'end') events.push(builder.configChanged(r, state, at, oracle));
        const splitAt: At = a ? a.splitAt : 'end';
        if (splitAt === 'end' && splitChanged(state, r.published)) events.push(builder.feeSplit(r, state, at));
      }
      // The snapshot is the state after every write up to C: adopt it (unless that read is older than an update applied).
      if (state.oracle) adoptOracle(r.tracked, state.oracle);
      r.tracked.split = state.fee ? canonicalSplit(state.fee.split) : null;
      r.published = state;
      if (isNew) r.discoveredSlot = cycle.targetSlot;
    }
    return events;
  }

  private async commitChunk(
    cycle: CycleRecord,
    throughSlot: number,
    out: ChunkOutput,
    pools: Map<string, PoolRecord>,
    listing: Listing,
    last: boolean,
  ): Promise<void> {
    const programCursors = new Map(this.progress.programCursors);
    for (const [program, all] of listing.listed) {
      const c = newestAtOrBelow(all, throughSlot);
      if (c) programCursors.set(program, c);
    }
    const startSlot = this.progress.startSlot ?? listing.refs[0]?.slot ?? cycle.targetSlot;
    const backfillDone = this.progress.backfillDone || last;
    // Fenced: the append and the cursor it moves happen only while this process holds the cluster.
    await this.fenced(async (db, epoch) => {
      await this.d.sink.append(out.events, epoch);
      await this.d.store.commit(
        this.cluster,
        {
          throughSlot,
          lastSignature: out.lastSignature ?? this.progress.lastSignature,
          startSlot,
          backfillDone,
          cycle: last ? null : cycle,
          programCursors,
          pools: [...pools.values()],
          gaps: out.gaps,
          problems: out.problems,
          held: out.held,
          released: out.released,
        },
        db,
      );
    });
    this.countEvents(out.events);
    this.noteIndexedTime(
      Math.max(
        -1,
        ...listing.refs.filter((r) => r.slot <= throughSlot).map((r) => r.blockTime ?? -1),
        last && cycle.targetSlot === throughSlot ? (cycle.targetBlockTime ?? -1) : -1,
      ),
    );
    // Durable: make it the in-memory truth.
    this.progress = {
      ...this.progress,
      throughSlot,
      lastSignature: out.lastSignature ?? this.progress.lastSignature,
      startSlot,
      backfillDone,
      cycle: last ? null : cycle,
      programCursors,
      pools: new Map([...pools].map(([k, v]) => [k, structuredClone(v)])),
    };
    this.observedThrough = throughSlot;
    this.lastProgressAt = this.now();
    for (const config of this.progress.pools.keys()) this.held.delete(config);
    this.d.metrics.heldPools.set({ cluster: this.cluster }, this.held.size);
    if (out.builtWithOpenGap > 0) this.d.metrics.builtWithOpenGap.inc({ cluster: this.cluster }, out.builtWithOpenGap);
    for (const g of out.gaps) for (const p of g.programs ?? []) this.openGapPrograms.set(p, (this.openGapPrograms.get(p) ?? 0) + 1);
    if (out.gaps.length > 0) {
      this.gaps += out.gaps.length;
      this.d.metrics.gapsRecorded.inc({ cluster: this.cluster }, out.gaps.length);
      this.log.warn(
        { gaps: logList(out.gaps.map((g) => ({ signature: g.signature, error: clipText(g.lastError, 200) }))) },
        `${out.gaps.length} transaction(s) not fetched after every retry: recorded in the gap ledger (all in indexer.gap)`,
      );
    }
    for (const p of out.problems) this.d.metrics.problems.inc({ cluster: this.cluster, code: p.code });
    this.d.metrics.gapLedger.set({ cluster: this.cluster }, this.gaps);
    this.d.metrics.pools.set({ cluster: this.cluster }, this.progress.pools.size);
    this.d.metrics.cursorSlot.set({ cluster: this.cluster }, throughSlot);
    if (last) this.d.metrics.backfillRatio.set({ cluster: this.cluster }, 1);
    this.updateLag();
  }

  /** Listed-late transactions join the chunk's gaps: the gap ledger indexes them with the state at the cursor. */
  private withLateListed(out: ChunkOutput, late: readonly LateRef[]): ChunkOutput {
    if (late.length === 0) return out;
    const state = trackedStates(this.progress.pools);
    const lateGaps = late.map((r) => ({
      signature: r.signature,
      slot: r.slot,
      txIndex: null,
      attempts: 0,
      lastError: 'listed late: missing from the listing when its slot was indexed (signature index behind the bank)',
      state,
      programs: r.programs,
    }));
    this.d.metrics.lateListed.inc({ cluster: this.cluster }, late.length);
    this.log.warn(
      { late: logList(late.map((r) => r.signature)) },
      `the RPC listed ${late.length} transaction(s) of slots already indexed (its signature index lagged): indexing them from the gap ledger (all in indexer.gap)`,
    );
    return { ...out, gaps: [...out.gaps, ...lateGaps] };
  }

  // ---- the gap ledger ------------------------------------------------------------------------

  /** Fetches due gap-ledger transactions again; resolved ones get their events now (state as it was at their position). */
  private async retryGaps(): Promise<void> {
    this.nextGapCheck = this.now() + Math.min(this.d.settings.gapRetryMs, 5000);
    if (this.gaps === 0) return;
    const due = await this.d.store.dueGaps(this.cluster, GAP_BATCH);
    if (due.length === 0) return;
    const results = await this.d.rpc.getTransactions(due.map((g) => g.signature));
    const events: HadronEvent[] = [];
    const problems: (DecodeProblem & { slot: number })[] = [];
    const resolved: string[] = [];
    for (const [i, gap] of due.entries()) {
      const res = results[i];
      if (!res.ok) {
        const delay = Math.min(MAX_GAP_DELAY_MS, this.d.settings.gapRetryMs * 2 ** Math.min(gap.attempts, 10));
        await this.d.store.deferGap(this.cluster, gap.signature, res.failure.message, delay);
        continue;
      }
      const tx = res.value;
      const facts = decodeTransaction(tx, this.ctx);
      const waitingFor = factsFor(facts, [], this.notHeld(this.progress.pools)).refused;
      if (waitingFor.size > 0) {
        await this.d.store.deferGap(
          this.cluster,
          gap.signature,
          `waiting for held pool ${[...waitingFor].join(', ')} (mint not readable yet)`,
          this.d.settings.gapRetryMs,
        );
        continue;
      }
      const pools = new Map<string, PoolRecord>();
      for (const [config, r] of this.progress.pools) pools.set(config, { ...r, tracked: { ...(gap.state[config] ?? UNKNOWN_STATE) } });
      const built = new EventBuilder(this.cluster, pools).transaction(
        facts,
        { signature: gap.signature, slot: gap.slot, blockTime: tx.blockTime ?? null, txIndex: gap.txIndex },
        scanTransaction(tx).initializes,
      );
      events.push(...built.events);
      problems.push(...built.problems.map((p) => ({ ...p, slot: gap.slot })));
      resolved.push(gap.signature);
    }
    if (resolved.length === 0) return;
    await this.fenced(async (db, epoch) => {
      await this.d.sink.append(events, epoch);
      await this.d.store.resolveGaps(this.cluster, resolved, problems, db);
    });
    this.countEvents(events);
    this.gaps = await this.d.store.gapCount(this.cluster);
    this.openGapPrograms = await this.d.store.openGapsByProgram(this.cluster);
    this.d.metrics.gapsResolved.inc({ cluster: this.cluster }, resolved.length);
    this.d.metrics.gapLedger.set({ cluster: this.cluster }, this.gaps);
    this.log.info({ resolved: resolved.length, left: this.gaps }, 'gap-ledger transactions fetched and indexed');
  }

  // ---- bookkeeping ---------------------------------------------------------------------------

  /**
   * The head, read on its own: a cycle that keeps failing must not freeze the lag readiness looks at.
   * One attempt: the next tick is its retry (a backoff here would only delay the cycle's own).
   */
  private async refreshHead(): Promise<void> {
    try {
      this.noteHead(await this.d.rpc.getSlot({ attempts: 1 }));
      this.updateLag();
    } catch {
      // the RPC is failing: the cycle errors say so
    }
  }

  private noteHead(slot: number): void {
    if (slot > this.headSlot) this.headSlot = slot;
    this.d.metrics.headSlot.set({ cluster: this.cluster }, this.headSlot);
  }

  private updateLag(): void {
    const s = this.status();
    if (s.slotLag !== null) this.d.metrics.slotLag.set({ cluster: this.cluster }, s.slotLag);
    if (s.lagSeconds !== null) this.d.metrics.lagSeconds.set({ cluster: this.cluster }, s.lagSeconds);
    this.d.metrics.rpcFailingSeconds.set({ cluster: this.cluster }, s.rpcFailingSeconds);
  }

  /** A block time (unix s; −1 = none) of something now indexed: the newest one is the data's freshness. */
  private noteIndexedTime(blockTime: number): void {
    if (blockTime < 0 || (this.indexedBlockTime !== null && blockTime <= this.indexedBlockTime)) return;
    this.indexedBlockTime = blockTime;
    this.d.metrics.indexedBlockTime.set({ cluster: this.cluster }, blockTime);
  }

  private countEvents(events: readonly HadronEvent[]): void {
    for (const e of events) this.d.metrics.events.inc({ cluster: this.cluster, type: e.type });
  }
}

/** The oldest successful transaction of a range. */
function firstOf(listing: RangeListing): TxRef | null {
  return listing.kind === 'full' ? (listing.refs[0] ?? null) : listing.first;
}

/** What the end-of-range commit moves the program cursors to: each program's newest listed signature. */
function endOf(listing: RangeListing): Listing {
  if (listing.kind === 'full') return listing;
  return { kind: 'full', refs: [], newest: listing.newest, listed: new Map([...listing.newest].map(([program, c]) => [program, [c]])), late: [] };
}

/** The programs whose listing named `signature` (a gap belongs to those programs' pools). */
function programsListing(listing: Listing, signature: string): string[] {
  return [...listing.listed].filter(([, all]) => all.some((c) => c.signature === signature)).map(([program]) => program);
}

/** The newest entry at or below `slot` of a newest-first list. */
function newestAtOrBelow(list: readonly ProgramCursor[], slot: number): ProgramCursor | null {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].slot > slot) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length ? list[lo] : null;
}

/** A signature older than the backfill's start (a slot, or a block time). */
function beforeRangeStart(s: SignatureInfo, bounds: { rangeStartSlot: number | null; rangeStartTime: number | null }): boolean {
  return (
    (bounds.rangeStartSlot !== null && s.slot < bounds.rangeStartSlot) ||
    (bounds.rangeStartTime !== null && s.blockTime !== null && s.blockTime < bounds.rangeStartTime)
  );
}

function oracleOf(o: { midpriceQ32: string | null; spreadFactorQ32: string | null } | null): { midpriceQ32: string | null; spreadFactorQ32: string | null } {
  return { midpriceQ32: o?.midpriceQ32 ?? null, spreadFactorQ32: o?.spreadFactorQ32 ?? null };
}

function configChangedAtEnd(observed: AccountState, published: AccountState): boolean {
  return JSON.stringify(configPart(observed)) !== JSON.stringify(configPart(published));
}

function configPart(a: AccountState): unknown[] {
  return [
    a.state,
    a.authority,
    a.oracleMode,
    a.spreadConfigInitialized,
    a.hasPoolFee,
    a.feeConfig,
    a.fee?.feePpm ?? null,
    a.fee?.feeRecipient ?? null,
    a.oracle?.quotingAuthority ?? null,
  ];
}

function trackedStates(pools: ReadonlyMap<string, PoolRecord>): Record<string, TrackedState> {
  const out: Record<string, TrackedState> = {};
  for (const [config, r] of pools) out[config] = structuredClone(r.tracked);
  return out;
}

/** The backfill progress line: done/total, rate, ETA. */
class ProgressLine {
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
