import { CLUSTERS, type Cluster } from '@hadron/contracts';
import { Client, type Pool } from 'pg';
import { isTransientDbError } from '../../database/pool';
import type { Logger } from '../../logging/logger';
import { backoffDelay } from '../../runtime/backoff';
import { BATCH_RETRY_BACKOFF, callHook, CheckpointedBatch, needsRecord, type PendingRecord, type PreparedBatch } from '../checkpointed-batch';
import type { ConsumeOptions, EventLogConsumer, LogPosition, OwnedPartitions } from '../event-log.port';
import {
  GROUP_LOCK_KEY,
  PG_LOG_CHANNEL,
  PG_STREAM,
  postgresLogCount,
  postgresLogLag,
  startPageRead,
  type PageRead,
  type PageRecord,
} from './postgres-event-log';
import { PollSleep } from '../../runtime/poll-sleep';

const TRY_LOCK = `SELECT pg_try_advisory_lock(${GROUP_LOCK_KEY}) AS ok`;
const UNLOCK = `SELECT pg_advisory_unlock(${GROUP_LOCK_KEY})`;
/** How long a round of batches waits for a slower group once another group's batch is done. */
const STRAGGLER_MS = 1000;
/** A standby member asks for its group's lock again after this long. */
const LOCK_RETRY_MS = 2000;
/** At most this many pages read ahead are kept (cohorts at other places or of other types each read their own). */
const AHEAD_KEPT = 8;
/**
 * A replaying group waits for a group behind it (one busy on a batch, or more than a cohort's
 * reach behind) up to this many of its pages back, and for a batch running up to HOLD_BUSY_MS.
 */
const HOLD_PAGES = AHEAD_KEPT;
const HOLD_BUSY_MS = 10_000;

/**
 * Every consumer group of one process reading the Postgres log through one reader: a page is read
 * and validated once, then applied by each group in its own transaction (its checkpoint with its
 * writes, CheckpointedBatch), the groups side by side on their own connections. Replaying every
 * projection (an upgrade, `npm run replay -- --projection all`) so reads and parses the log once
 * instead of once per projection.
 *
 * Groups at the same place in the log (within a page) form a cohort and share its pages; a build
 * replaying from the start beside live ones is its own cohort until it reaches them (then they
 * merge). Replaying groups wait for one another (waitsForOneBehind) so they keep sharing pages;
 * groups that have reached the tail never wait for a replaying one. Each group keeps what a lone
 * PostgresEventLogConsumer gives it: one active consumer per group across processes (the same
 * advisory lock, held on the reader's LISTEN connection, so a lone consumer and a member exclude
 * each other), its own retries with backoff (a failed group does not hold the others, a stuck batch
 * holds them at most HOLD_BUSY_MS), its own lag, and stop() draining its in-flight batch.
 */
export class PostgresFanOut {
  private readonly members = new Set<FanOutMember>();
  private listener?: Client;
  private running?: Promise<void>;
  private readonly pause = new PollSleep();
  /** Statements on the LISTEN connection, one at a time (a member's unlock may come while the loop locks). */
  private onListener: Promise<unknown> = Promise.resolve();
  /**
   * Pages read (and validated) ahead, oldest first. A full one (`limit` records: the log only
   * grows past it) is kept until every member is past where it starts (at most AHEAD_KEPT), so a
   * member that straggled or failed a round, or a cohort that regrouped, still finds the page it
   * needs instead of reading and validating it again; a short one (the tail as it was) is served once.
   */
  private readonly ahead: AheadPage[] = [];
  /** Log reads issued (tests and metrics: an idle reader does not poll). */
  fetches = 0;

  constructor(
    readonly pool: Pool,
    private readonly url: string,
    readonly log: Logger,
    private readonly idlePollMs = 5000,
    /** How long a replaying group waits for a batch of a group behind it (HOLD_BUSY_MS; tests shorten it). */
    private readonly holdBusyMs = HOLD_BUSY_MS,
  ) {}

  /** A consumer of one group, read through this fan-out. */
  consumer(): EventLogConsumer {
    return new FanOutMember(this);
  }

  /** @internal */
  async join(m: FanOutMember): Promise<void> {
    this.members.add(m);
    if (!this.running) this.running = this.loop().catch((e) => this.log.fatal({ err: e }, 'postgres fan-out reader stopped unexpectedly'));
    this.wake();
  }

  /** @internal Waits for the member's batch in flight, then gives its group's lock back. */
  async leave(m: FanOutMember): Promise<void> {
    m.stopping = true;
    this.wake();
    await m.inFlight;
    this.members.delete(m);
    if (m.locked && this.listener) await this.listenerQuery(this.listener, UNLOCK, [m.opts!.group]).catch(() => undefined);
    m.locked = false;
    this.wake();
    if (this.members.size === 0) await this.running;
  }

  /** @internal */
  isListening(): boolean {
    return !!this.listener;
  }

  private async loop(): Promise<void> {
    while (this.members.size > 0) {
      // The round is about to read: news so far is seen. Consumed before connecting, not after: news
      // seen only once connected stayed pending while the database could not be reached, ended
      // every retry's pause at once, and a process whose database went away spun a core, logging
      // the line below thousands of times a second. News that comes meanwhile (a member leaving)
      // still ends the pause, so a stop is not held up.
      this.pause.consume();
      try {
        await this.lockGroups();
      } catch (e) {
        this.log.warn({ err: (e as Error).message }, 'fan-out reader could not connect for its groups; retrying');
        this.dropListener();
        await this.pause.sleep(1000);
        continue;
      }
      const now = Date.now();
      const ready = [...this.members].filter((m) => m.locked && !m.stopping && !m.busy && m.retryAt <= now && !this.waitsForOneBehind(m, now));
      let progressed = false;
      if (ready.length > 0) {
        // Every cohort's page first, then every member's batch: the round waits for the batches
        // (lockstep keeps the cohorts together) but not for a member still busy a second after
        // another finished, nor for more than holdBusyMs in all.
        const applies = (await Promise.all(cohorts(ready).map((c) => this.serve(c)))).flat();
        const served = await allOrStragglers(applies, STRAGGLER_MS, this.holdBusyMs);
        progressed = served.some((n) => n !== 0);
      }
      this.dropPassedPages();
      if (!progressed) await this.pause.sleep(this.nextWakeIn(now));
    }
    const listener = this.listener;
    this.listener = undefined;
    this.running = undefined;
    this.ahead.length = 0;
    await listener?.end().catch(() => undefined);
  }

  /**
   * Whether `m`, replaying (it has not reached the log's tail since it started), sits this round out
   * for a healthy group behind it, within HOLD_PAGES of its pages: one still busy on a batch (for
   * up to holdBusyMs), or one too far behind to share its cohort's pages. Replaying builds so
   * stay together and read the log once: without it, a build slow on one batch (over STRAGGLER_MS)
   * fell more than two pages behind, the others went on in a cohort of other types (the swaps
   * build, alone, in pages of swaps only) and every page from there on was read and validated
   * twice (every projection at once, 10^6 events: one replay in three or four made 287-290 page
   * reads instead of 208-211 and took 17-60 % longer). Builds that joined a few pages apart (a
   * replay starts each build in turn) regroup the same way. A group that has reached the tail is
   * never held, even a page or two behind it again or sharing a page with a replaying one (live
   * builds keep up beside a replaying one), nor is any for a group that failed its last batch (in
   * backoff) or is stopping; the group furthest behind is never held, so the wait ends.
   */
  private waitsForOneBehind(m: FanOutMember, now: number): boolean {
    if (m.caughtUp) return false;
    const window = BigInt(HOLD_PAGES) * pageSize(m);
    for (const t of this.members) {
      if (t === m || !t.locked || t.stopping || t.failures > 0 || t.next >= m.next || m.next - t.next > window) continue;
      if (t.busy ? now - t.busySince < this.holdBusyMs : m.next - t.next >= cohortReach(t)) return true;
    }
    return false;
  }

  /** Reads one page for a cohort and starts each member's batch of it (from where it stands): one promise per member, of the log records it moved past. */
  private async serve(cohort: FanOutMember[]): Promise<Promise<number>[]> {
    const from = cohort.reduce((a, m) => (m.next < a ? m.next : a), cohort[0].next);
    const limit = Math.max(...cohort.map(batchSize));
    // The union of what the members read: none reads a type out of it, so it is never transferred.
    const types = cohort.some((m) => !m.types) ? undefined : new Set(cohort.flatMap((m) => [...m.types!]));
    const clusters = [...new Set(cohort.flatMap((m) => m.opts!.clusters))];
    let page: PageRecord[];
    try {
      const read = this.pageAhead(from, limit, types, clusters) ?? this.fetch(clusters, types, from, limit);
      const rows = await read.rows;
      // A page short of `limit` ends where the log ended when it was read: the next round reads again.
      // Its members have reached the tail: none of them waits for a replaying group from now on.
      if (!rows.full) {
        this.forget(read);
        for (const m of cohort) m.caughtUp = true;
      }
      if (rows.rows.length === 0) {
        // Nothing past the member furthest behind: every member of the cohort is at the tail.
        for (const m of cohort) callHook(m.opts!.onTail);
        return [];
      }
      // The next page is asked for as soon as this one's rows are in: it is read and validated while
      // this one is, and each member prepares its batch of it (BatchHandler.prepare) meanwhile.
      if (rows.full) {
        const next = this.readAhead(clusters, types, rows.after, limit);
        next.records.then(
          (p) => cohort.forEach((m) => m.prepareAhead(p, rows.after)),
          () => undefined,
        );
      }
      page = await read.records;
    } catch (e) {
      for (const m of cohort) await m.failed(e as Error);
      return [];
    }
    return cohort.map((m) => m.apply(page, from, clusters).finally(() => this.wake()));
  }

  private fetch(clusters: readonly Cluster[], types: ReadonlySet<string> | undefined, from: bigint, limit: number): PageRead {
    this.fetches++;
    return startPageRead(this.pool, { clusters, types, from, limit });
  }

  /**
   * The page read ahead from `from` (one kept already, or one started now and kept for whichever
   * round serves it); a read that fails is not kept (its round reads the page again).
   */
  private readAhead(clusters: readonly Cluster[], types: ReadonlySet<string> | undefined, from: bigint, limit: number): PageRead {
    const kept = this.pageAhead(from, limit, types, clusters);
    if (kept) return kept;
    const read = this.fetch(clusters, types, from, limit);
    const page: AheadPage = { from, limit, types, clusters: new Set(clusters), read };
    this.ahead.push(page);
    if (this.ahead.length > AHEAD_KEPT) this.ahead.shift();
    read.rows.catch(() => this.forget(read));
    return read;
  }

  /**
   * A page read ahead that serves this request: from the same place, as many records, of the same
   * clusters, and of every type asked for (of more, too: each member takes only its own types, and
   * the page's last row counts whatever it skipped).
   */
  private pageAhead(from: bigint, limit: number, types: ReadonlySet<string> | undefined, clusters: readonly Cluster[]): PageRead | undefined {
    for (const p of this.ahead) {
      if (p.from !== from || p.limit !== limit || p.clusters.size !== clusters.length || !clusters.every((c) => p.clusters.has(c))) continue;
      if (p.types === undefined || (types !== undefined && [...types].every((t) => p.types!.has(t)))) return p.read;
    }
    return undefined;
  }

  /** Drops a page read ahead (a failed read, or a short page once served). */
  private forget(read: PageRead): void {
    const i = this.ahead.findIndex((p) => p.read === read);
    if (i >= 0) this.ahead.splice(i, 1);
  }

  /** Drops the pages read ahead that start before every member's position: no round will serve them. */
  private dropPassedPages(): void {
    let lowest: bigint | undefined;
    for (const m of this.members) if (lowest === undefined || m.next < lowest) lowest = m.next;
    for (let i = this.ahead.length - 1; i >= 0; i--) if (lowest === undefined || this.ahead[i].from < lowest) this.ahead.splice(i, 1);
  }

  /** Connects (LISTEN) if needed and takes the lock of every member not holding its group's yet. */
  private async lockGroups(): Promise<void> {
    if (!this.listener) {
      const client = new Client({ connectionString: this.url, application_name: 'hadron-consumer:fan-out' });
      client.on('error', (e) => {
        this.log.warn({ err: e.message }, 'fan-out listen connection lost; reconnecting');
        if (this.listener === client) this.dropListener();
        this.wake();
      });
      await client.connect();
      client.on('notification', () => this.wake());
      await client.query(`LISTEN ${PG_LOG_CHANNEL}`);
      this.listener = client;
    }
    const now = Date.now();
    for (const m of this.members) {
      if (m.locked || m.stopping || m.lockRetryAt > now) continue;
      // Advisory locks are re-entrant within a session: a second member of the same group (another
      // runner of this process on the same log) must wait for the first, as a consumer elsewhere would.
      if ([...this.members].some((o) => o !== m && o.locked && o.opts!.group === m.opts!.group)) {
        m.lockRetryAt = now + LOCK_RETRY_MS;
        continue;
      }
      const { rows } = await this.listenerQuery<{ ok: boolean }>(this.listener, TRY_LOCK, [m.opts!.group]);
      if (!rows[0].ok) {
        m.lockRetryAt = now + LOCK_RETRY_MS;
        continue;
      }
      if (m.stopping || !this.members.has(m)) {
        await this.listenerQuery(this.listener, UNLOCK, [m.opts!.group]);
        continue;
      }
      m.locked = true;
      // What the group's previous consumer committed (another process, before it stopped).
      m.next = (await m.batch!.checkpoints(PG_STREAM)).get(0) ?? m.next;
      this.log.info({ group: m.opts!.group }, 'consumer active for group');
    }
  }

  private listenerQuery<R extends Record<string, unknown>>(client: Client, sql: string, params: unknown[]): Promise<{ rows: R[] }> {
    const run = this.onListener.then(() => client.query<R>(sql, params));
    this.onListener = run.catch(() => undefined);
    return run;
  }

  /** The connection (and with it every group's lock) is gone: each member must take its lock again. */
  private dropListener(): void {
    const l = this.listener;
    this.listener = undefined;
    for (const m of this.members) m.locked = false;
    l?.end().catch(() => undefined);
  }

  private nextWakeIn(now: number): number {
    let ms = this.idlePollMs;
    for (const m of this.members) {
      if (m.stopping) continue;
      if (!m.locked) ms = Math.min(ms, Math.max(0, m.lockRetryAt - now) || LOCK_RETRY_MS);
      else if (m.retryAt > now) ms = Math.min(ms, m.retryAt - now);
      // A group held for this one's batch stops waiting for it then (its end wakes the loop before).
      else if (m.busy && m.busySince + this.holdBusyMs > now) ms = Math.min(ms, m.busySince + this.holdBusyMs - now);
    }
    return ms;
  }

  /** @internal */
  wake(): void {
    this.pause.wake();
  }
}

/**
 * The results of `runs` once all have settled, or, once one has, after `ms` more, or after
 * `atMostMs` in all (undefined for the ones still running): a group slow on a batch (a lock, a
 * long rebuild batch) is not waited for, it rejoins when done, so the other groups (the served
 * builds) keep up meanwhile; and a round whose every batch is stuck does not keep a group that
 * joins meanwhile (a new build) or one whose retry is due from being served.
 */
async function allOrStragglers<T>(runs: Promise<T>[], ms: number, atMostMs: number): Promise<(T | undefined)[]> {
  const results: (T | undefined)[] = runs.map(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  let cap: NodeJS.Timeout | undefined;
  const straggled = new Promise<void>((resolve) => {
    cap = setTimeout(resolve, atMostMs);
    for (const [i, r] of runs.entries()) {
      r.then(
        (v) => void (results[i] = v),
        () => undefined,
      ).finally(() => {
        timer ??= setTimeout(resolve, ms);
      });
    }
  });
  try {
    await Promise.race([Promise.allSettled(runs), straggled]);
  } finally {
    clearTimeout(timer);
    clearTimeout(cap);
  }
  return results;
}

/** A page read ahead: the request it answers, and its read. */
interface AheadPage {
  from: bigint;
  limit: number;
  types: ReadonlySet<string> | undefined;
  clusters: ReadonlySet<string>;
  read: PageRead;
}

/** The most log records a member's batch is read from. */
const batchSize = (m: FanOutMember): number => m.opts!.maxBatchSize ?? 2000;
const pageSize = (m: FanOutMember): bigint => BigInt(batchSize(m));

/** How far ahead of a member another may stand and share its cohort's pages: two pages (a member a page behind, it straggled, rejoins the others' reads at once). */
const cohortReach = (m: FanOutMember): bigint => 2n * pageSize(m);

/** Members sorted by position; one cohort per run of members less than two pages apart. */
function cohorts(members: FanOutMember[]): FanOutMember[][] {
  const sorted = [...members].sort((a, b) => (a.next < b.next ? -1 : a.next > b.next ? 1 : 0));
  const out: FanOutMember[][] = [];
  for (const m of sorted) {
    const last = out[out.length - 1];
    if (last && m.next - last[0].next < cohortReach(m)) last.push(m);
    else out.push([m]);
  }
  return out;
}

/** One group's consumer inside a PostgresFanOut. */
class FanOutMember implements EventLogConsumer {
  opts?: ConsumeOptions;
  batch?: CheckpointedBatch;
  types?: ReadonlySet<string>;
  private clusters?: ReadonlySet<string>;
  next = 0n;
  locked = false;
  stopping = false;
  lockRetryAt = 0;
  /** A failed batch is retried from this time on (backoff). */
  retryAt = 0;
  /** Batches failed in a row (0: its last one committed). */
  failures = 0;
  /** It has been served a page short of its limit (the log's tail) since it started: a live group, not a replay. */
  caughtUp = false;
  inFlight?: Promise<unknown>;
  /** A batch of this group is being applied (a straggler of a past round, the next round leaves it out). */
  busy = false;
  /** When its batch in flight started. */
  busySince = 0;
  /** Its batch of a page read ahead, prepared while the current batch runs (used only for that page). */
  private ahead?: { page: readonly PageRecord[]; prepared: PreparedBatch | undefined };

  constructor(private readonly hub: PostgresFanOut) {}

  async start(opts: ConsumeOptions): Promise<void> {
    this.opts = opts;
    this.stopping = false;
    this.caughtUp = false;
    this.types = opts.types ? new Set(opts.types) : undefined;
    this.clusters = CLUSTERS.every((c) => opts.clusters.includes(c)) ? undefined : new Set(opts.clusters);
    this.batch = new CheckpointedBatch(this.hub.pool, opts.group, opts.handler, this.hub.log, opts.batchTimeoutMs);
    this.next = (await this.batch.checkpoints(PG_STREAM)).get(0) ?? 0n;
    await this.hub.join(this);
  }

  async stop(): Promise<void> {
    if (!this.opts) return;
    await this.hub.leave(this);
  }

  async lag(): Promise<bigint> {
    if (!this.opts || !this.batch) return 0n;
    // A standby's own position dates from its start: the group's is where the active consumer left it.
    const from = this.locked ? this.next : ((await this.batch.checkpoints(PG_STREAM)).get(0) ?? this.next);
    return postgresLogLag(this.hub.pool, this.opts.clusters, from);
  }

  async owned(): Promise<OwnedPartitions> {
    if (!this.locked) return { streams: [PG_STREAM], partitions: [] };
    return { streams: [PG_STREAM], partitions: [{ stream: PG_STREAM, partition: 0, lag: await this.lag() }] };
  }

  /**
   * Applies the records of `page` (read from `pageFrom` in `clusters`) at or past this group's
   * position; returns how many log records it moved past.
   */
  apply(page: readonly PageRecord[], pageFrom: bigint, clusters: readonly Cluster[]): Promise<number> {
    this.busy = true;
    this.busySince = Date.now();
    const run = this.applyPage(page, pageFrom, clusters).finally(() => (this.busy = false));
    this.inFlight = run.catch(() => undefined);
    return run;
  }

  /** Prepares its batch of `page`, read ahead to start at `from` (where this group will be once its current batch commits). */
  prepareAhead(page: readonly PageRecord[], from: bigint): void {
    if (this.stopping || !this.batch?.canPrepare) return;
    this.ahead = { page, prepared: this.batch.prepare(this.recordsOf(page, from).records) };
  }

  private async applyPage(page: readonly PageRecord[], pageFrom: bigint, clusters: readonly Cluster[]): Promise<number> {
    if (this.stopping) return 0; // stop() was asked while the page was read: nothing more from this group
    const from = this.next;
    const { records, positions } = this.recordsOf(page, from);
    // The batch uses what was prepared only if its events are exactly those (CheckpointedBatch).
    const prepared = this.ahead?.page === page ? this.ahead.prepared : undefined;
    this.ahead = undefined;
    if (records.length === 0 || !this.batch || !this.opts) return 0;
    const opts = this.opts;
    try {
      if (from > pageFrom) await this.uncountBefore(page, records, pageFrom, from, clusters);
      // The checkpoint is re-read inside the batch: one behind `from` (commits lost) makes it refuse to run.
      const outcome = await this.batch.process(PG_STREAM, records, new Map([[0, from]]), prepared);
      this.next = outcome.next.get(0) ?? this.next;
      this.failures = 0;
      opts.onCommitted?.({ count: outcome.processed, deadLettered: outcome.deadLettered.length, positions });
      return outcome.processed;
    } catch (e) {
      await this.failed(e as Error);
      return 0;
    }
  }

  /**
   * The page's reach marker counts the records it skipped from the page's start; a group further
   * on (a cohort's page starts where its member furthest behind stands) counts only those at or
   * past its own position: it takes off the ones before, a count of the log between the two less
   * the page's rows there. Without it, replay progress and the events-processed metrics counted
   * such records twice (seen: 100,083 of 100,000 log records).
   */
  private async uncountBefore(
    page: readonly PageRecord[],
    records: PendingRecord[],
    pageFrom: bigint,
    from: bigint,
    clusters: readonly Cluster[],
  ): Promise<void> {
    const reach = page[page.length - 1];
    const last = records[records.length - 1];
    if (!reach?.reach || reach.position.offset < from || !last.skipped || last.position !== reach.position) return;
    let returned = 0;
    for (const r of page) if (r !== reach && r.position.offset < from) returned++;
    const before = (await postgresLogCount(this.hub.pool, clusters, pageFrom, from)) - returned;
    last.weight = Math.max(0, (last.weight ?? 1) - before);
  }

  /** The records of `page` from `from` on, as this group's batch: runs of records it does not read collapse into one skipped record. */
  private recordsOf(page: readonly PageRecord[], from: bigint): { records: PendingRecord[]; positions: LogPosition[] } {
    const records: PendingRecord[] = [];
    const positions: LogPosition[] = [];
    for (const r of page) {
      if (r.position.offset < from) continue;
      positions.push(r.position);
      const mine = !r.skipped && needsRecord(this.types, r.type) && (!this.clusters || r.cluster === undefined || this.clusters.has(r.cluster));
      if (mine) {
        records.push(r);
        continue;
      }
      // Runs of records this group does not read collapse into one skipped record (it only moves
      // the checkpoint); the skipped records in `records` are this batch's own, so it grows in place.
      const last = records[records.length - 1];
      const weight = r.weight ?? 1;
      if (last?.skipped) {
        last.position = r.position;
        last.weight = (last.weight ?? 1) + weight;
      } else records.push({ position: r.position, payload: '', skipped: true, weight });
    }
    return { records, positions };
  }

  /** A failed batch: report it, re-read the stored checkpoint, retry after a backoff (the other groups go on). */
  async failed(error: Error): Promise<void> {
    const opts = this.opts!;
    this.failures++;
    const transient = isTransientDbError(error);
    const delay = backoffDelay(this.failures, BATCH_RETRY_BACKOFF);
    this.hub.log.error(
      { err: error.message, group: opts.group, transient, failures: this.failures, retryInMs: delay },
      'postgres consumer batch failed; will retry',
    );
    callHook(opts.onError, { error, transient, consecutiveFailures: this.failures, stream: PG_STREAM, partition: 0 });
    // Always re-read the stored checkpoint: a lost or rolled-back commit must be re-read from it.
    this.next = (await this.batch!.checkpoints(PG_STREAM).catch(() => undefined))?.get(0) ?? this.next;
    this.retryAt = Date.now() + delay;
  }
}
