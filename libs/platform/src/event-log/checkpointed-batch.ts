import { parseHadronEvent, type HadronEvent, type ParseResult } from '@hadron/contracts';
import { Client, type ClientConfig, type Pool, type PoolClient } from 'pg';
import { isTransientDbError } from '../database/pool';
import { atMost } from '../runtime/at-most';
import type { Logger } from '../logging/logger';
import { isPoisonEventError, type BatchHandler, type DeliveredEvent, type LogPosition, type SqlTx } from './event-log.port';

/** A record read from a log partition, not yet validated. */
export interface PendingRecord {
  position: LogPosition;
  payload: string;
  /** The type stored with the record (column / header), if any: checked against the payload's. */
  type?: string | null;
  /** The appender's fencing epoch (column / header), if it was fenced. */
  writerEpoch?: bigint;
  /** A record of a type the group does not read: not parsed, not applied, but checkpointed. */
  skipped?: boolean;
  /** How many log records this one stands for in `processed` (a skipped range), default 1. */
  weight?: number;
  /** The payload already checked against the contracts (a consumer may do it while the previous batch commits). */
  parsed?: ParseResult;
}

/** A handler's `prepare` result for exactly these events (CheckpointedBatch.prepare). */
export interface PreparedBatch {
  readonly events: readonly HadronEvent[];
  readonly value: unknown;
}

export function skippedRecord(position: LogPosition): PendingRecord {
  return { position, payload: '', skipped: true };
}

/** Whether a consumer that reads `types` (undefined = all) must parse a record stored with `type`. */
export function needsRecord(types: ReadonlySet<string> | undefined, type: string | null | undefined): boolean {
  return types === undefined || type === null || type === undefined || types.has(type);
}

/**
 * The stored checkpoint is behind where this consumer believed it was: commits were lost (an
 * asynchronous commit lost in a database crash) or the database was restored. Records between
 * the two were never applied, so the consumer must re-read from the stored checkpoint.
 * Transient (code 40001): the consumer re-syncs and retries, nothing is dead-lettered.
 */
export class CheckpointBehindError extends Error {
  override readonly name = 'CheckpointBehindError';
  readonly code = '40001';
  constructor(
    readonly stream: string,
    readonly partition: number,
    readonly stored: bigint,
    readonly believed: bigint,
  ) {
    super(`checkpoint of ${stream}/${partition} is ${stored} in the database but ${believed} was committed; re-reading from ${stored}`);
  }
}

/** Every consumer retries a failed batch after 0.5 s, 1 s, 2 s … 30 s (a new append does not cut that wait short). */
export const BATCH_RETRY_BACKOFF = { baseMs: 500, maxMs: 30_000 };

/** How long a batch may run (from asking for a connection to COMMIT) when the consumer sets no `batchTimeoutMs`: 5 minutes. */
export const DEFAULT_BATCH_TIMEOUT_MS = 300_000;

/**
 * A batch retried after running past its deadline gets twice the deadline of its last attempt, up
 * to 2^3 = 8 times the configured one; a committed batch of its partition resets it. A batch that
 * is merely long (a late arrival recomputing a very busy day on a slow server) so commits on a
 * later attempt instead of being ended and retried forever, and a hung one is still ended, at most
 * 8 deadlines later.
 */
export const MAX_DEADLINE_DOUBLINGS = 3;

/**
 * A batch ran past its deadline (ConsumeOptions.batchTimeoutMs): its database session was ended
 * (pg_terminate_backend: its transaction rolls back and its locks go) and the consumer retries it.
 * Without a deadline such a batch — a statement waiting on a lock nobody releases, a connection
 * lost where the client never notices, a handler awaiting something that never comes — would hold
 * its consumer, and in a fan-out every member, without a word, while Kafka kept heartbeating.
 */
export class BatchTimeoutError extends Error {
  override readonly name = 'BatchTimeoutError';
  readonly code = '57014'; // query_canceled, as Postgres reports a statement_timeout
  constructor(
    readonly group: string,
    readonly records: number,
    /** This attempt's deadline. */
    readonly timeoutMs: number,
    /** The next attempt's (MAX_DEADLINE_DOUBLINGS). */
    readonly nextTimeoutMs: number,
  ) {
    super(
      `a batch of ${records} records of group ${group} ran longer than its ${timeoutMs} ms deadline: its database session was ended, nothing of it was committed, and it will be retried with a ${nextTimeoutMs} ms deadline`,
    );
  }
}

export interface BatchOutcome {
  /** Log records at or past the checkpoint that this call moved past (applied, dead-lettered or skipped). */
  processed: number;
  deadLettered: Array<{ position: LogPosition; reason: string; payload: string; eventId: string | null }>;
  /** Next offset per partition after the commit. */
  next: Map<number, bigint>;
}

/**
 * The heart of exactly-once effect over at-least-once transport: one database transaction
 * (1) locks the group's checkpoint rows, (2) skips records already processed, (3) dead-letters
 * payloads that fail the contract, (4) runs the projection handler, (5) advances the checkpoint.
 * A crash anywhere before COMMIT leaves no trace; a redelivery after COMMIT is skipped.
 *
 * Only two kinds of failure are dead-lettered: a payload that fails the contract, and an event the
 * handler refuses with a poison-marked error (isPoisonEventError). Then the batch is split in
 * halves (each under a savepoint), again and again, so exactly the poison event is dead-lettered
 * and the rest still apply, in order. Any other error (a bug, a missing table, an overflow, a constraint
 * violation, a lost connection) rolls the whole batch back and is rethrown: the consumer stalls
 * on it, retrying with backoff and reporting it, rather than dead-letter a healthy stream.
 */
export class CheckpointedBatch {
  /** Per stream/partition, how many of its batches in a row ran past their deadline (MAX_DEADLINE_DOUBLINGS). */
  private readonly overdueInRow = new Map<string, number>();

  constructor(
    private readonly pool: Pool,
    private readonly group: string,
    private readonly handler: BatchHandler,
    private readonly log: Logger,
    /** From asking for a connection to COMMIT; 0: no deadline. */
    private readonly timeoutMs = DEFAULT_BATCH_TIMEOUT_MS,
  ) {}

  /**
   * `believed`: per partition, the checkpoint this consumer last committed (or read); a stored
   * checkpoint behind it raises CheckpointBehindError before anything is applied.
   */
  async process(stream: string, records: readonly PendingRecord[], believed?: ReadonlyMap<number, bigint>, prepared?: PreparedBatch): Promise<BatchOutcome> {
    // The deadline runs from asking for a connection (an exhausted pool waits for a free client
    // forever) to COMMIT; doubled for each attempt in a row of this partition that ran past it.
    const partition = records.length > 0 ? `${records[0].position.stream}/${records[0].position.partition}` : '';
    const timeoutMs = this.deadlineMs(this.overdueInRow.get(partition) ?? 0);
    let overdue: BatchTimeoutError | undefined;
    let client: PoolClient | undefined;
    const work = (async () => {
      const c = await this.pool.connect();
      // Overdue while it waited for this client: it goes straight back, and nothing runs.
      if (overdue) {
        c.release();
        throw overdue;
      }
      client = c;
      await c.query('BEGIN');
      const outcome = await this.processInTx(c, stream, records, believed, prepared);
      await c.query('COMMIT');
      return outcome;
    })();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      if (timeoutMs > 0)
        timer = setTimeout(() => {
          const inRow = (this.overdueInRow.get(partition) ?? 0) + 1;
          this.overdueInRow.set(partition, inRow);
          reject((overdue = new BatchTimeoutError(this.group, records.length, timeoutMs, this.deadlineMs(inRow))));
        }, timeoutMs);
    });
    try {
      const outcome = await Promise.race([work, deadline]);
      this.overdueInRow.delete(partition);
      return outcome;
    } catch (e) {
      if (overdue === undefined || e !== overdue) {
        await client?.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
      // The attempt may still be waiting on the server (a lock) or on nothing at all: end its
      // session so its transaction and locks go now (the retry takes the same checkpoint rows),
      // and drop its client. Whatever it does next fails on the dead connection, unheard.
      work.catch(() => undefined);
      if (client) await this.endSession(client, overdue);
      else
        this.log.error(
          { group: this.group, records: records.length, timeoutMs, nextTimeoutMs: overdue.nextTimeoutMs },
          'batch ran past its deadline waiting for a database connection',
        );
      throw e;
    } finally {
      clearTimeout(timer);
      if (!overdue) client?.release();
    }
  }

  /** The deadline of an attempt after `inRow` overdue ones of its partition (0: none). */
  private deadlineMs(inRow: number): number {
    return this.timeoutMs * 2 ** Math.min(inRow, MAX_DEADLINE_DOUBLINGS);
  }

  /** Terminates the overdue batch's backend and destroys its client. */
  private async endSession(client: PoolClient, e: BatchTimeoutError): Promise<void> {
    const pid = (client as unknown as { processID?: number }).processID;
    this.log.error(
      { group: this.group, records: e.records, timeoutMs: e.timeoutMs, nextTimeoutMs: e.nextTimeoutMs, backendPid: pid },
      'batch ran past its deadline; ending its database session',
    );
    if (pid !== undefined) await this.terminate(pid);
    client.release(e);
  }

  /**
   * pg_terminate_backend on a connection of its own, not one of the pool's: the pool may have no
   * free client (the overdue batch may hold the last). Bounded at 5 s: the database may be what hangs.
   */
  private async terminate(pid: number): Promise<void> {
    const options = (this.pool as unknown as { options: ClientConfig }).options;
    const admin = new Client({ ...options, connectionTimeoutMillis: 5000, query_timeout: 5000 });
    admin.on('error', () => undefined);
    const done = (async () => {
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    })().catch((err: Error) => this.log.warn({ group: this.group, backendPid: pid, err: err.message }, 'could not terminate the overdue batch session'));
    await atMost(done, 5000);
    void done.then(() => admin.end().catch(() => undefined));
  }

  /** Whether the handler has database-free work to do ahead (BatchHandler.prepare). */
  get canPrepare(): boolean {
    return this.handler.prepare !== undefined;
  }

  /**
   * The handler's database-free work (BatchHandler.prepare) for `records`, done ahead by a consumer
   * reading ahead: undefined when the handler has none, when a record would be dead-lettered (the
   * batch then runs the usual way), or when it throws. `process` uses it only if the batch's
   * events turn out to be exactly these.
   */
  prepare(records: readonly PendingRecord[]): PreparedBatch | undefined {
    const prepare = this.handler.prepare;
    if (!prepare) return undefined;
    const events: DeliveredEvent[] = [];
    for (const r of records) {
      if (r.skipped) continue;
      const parsed = r.parsed;
      if (!parsed?.ok || storedTypeDiffers(r, parsed.event)) return undefined;
      events.push(delivered(r, parsed.event));
    }
    if (events.length === 0) return undefined;
    try {
      return { events: events.map((e) => e.event), value: prepare(events) };
    } catch {
      return undefined;
    }
  }

  /** Stored next offsets of this group for a stream (partition → offset). */
  async checkpoints(stream: string): Promise<Map<number, bigint>> {
    const { rows } = await this.pool.query<{ partition: number; next_offset: string }>(
      'SELECT partition, next_offset FROM event_log_checkpoint WHERE group_id = $1 AND stream = $2',
      [this.group, stream],
    );
    return new Map(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
  }

  private async processInTx(
    client: PoolClient,
    stream: string,
    records: readonly PendingRecord[],
    believed?: ReadonlyMap<number, bigint>,
    prepared?: PreparedBatch,
  ): Promise<BatchOutcome> {
    const partitions: number[] = [];
    for (const r of records) if (!partitions.includes(r.position.partition)) partitions.push(r.position.partition);
    const { rows } = await client.query<{ partition: number; next_offset: string }>(
      `SELECT partition, next_offset FROM event_log_checkpoint
        WHERE group_id = $1 AND stream = $2 AND partition = ANY($3::int[]) FOR UPDATE`,
      [this.group, stream, partitions],
    );
    const next = new Map<number, bigint>(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
    for (const p of partitions) {
      const expected = believed?.get(p);
      const stored = next.get(p) ?? 0n;
      if (expected !== undefined && stored < expected) throw new CheckpointBehindError(stream, p, stored, expected);
    }

    // One pass over the records at or past the checkpoint (the others were applied before): each
    // is applied, dead-lettered or skipped, and the checkpoint moves past the last one of each partition.
    const valid: DeliveredEvent[] = [];
    const dead: BatchOutcome['deadLettered'] = [];
    const last = new Map<number, bigint>();
    let processed = 0;
    for (const r of records) {
      const { partition, offset } = r.position;
      if (offset < (next.get(partition) ?? 0n)) continue;
      processed += r.weight ?? 1;
      const top = last.get(partition);
      if (top === undefined || offset > top) last.set(partition, offset);
      if (r.skipped) continue;
      const parsed = r.parsed ?? parseHadronEvent(r.payload);
      if (!parsed.ok) dead.push({ position: r.position, reason: `invalid payload: ${parsed.reason}`, payload: r.payload, eventId: idOf(r.payload) });
      else if (storedTypeDiffers(r, parsed.event)) {
        dead.push({
          position: r.position,
          reason: `invalid payload: stored as type ${r.type} but the payload is a ${parsed.event.type}`,
          payload: r.payload,
          eventId: parsed.event.id,
        });
      } else valid.push(delivered(r, parsed.event));
    }

    const ahead = prepared && dead.length === 0 && sameEvents(prepared.events, valid) ? prepared.value : undefined;
    if (valid.length > 0) await this.applyIsolatingPoison(client, valid, dead, ahead);
    if (dead.length > 0) await this.deadLetter(client, dead);

    for (const [p, offset] of last) next.set(p, offset + 1n);
    const touched = [...next].filter(([p]) => partitions.includes(p));
    if (last.size > 0) {
      await client.query(
        `INSERT INTO event_log_checkpoint (group_id, stream, partition, next_offset, updated_at)
         SELECT $1, $2, p, o, now() FROM unnest($3::int[], $4::bigint[]) AS t(p, o)
         ON CONFLICT (group_id, stream, partition)
         DO UPDATE SET next_offset = GREATEST(event_log_checkpoint.next_offset, EXCLUDED.next_offset), updated_at = now()`,
        [this.group, stream, touched.map(([p]) => p), touched.map(([, o]) => o.toString())],
      );
    }
    return { processed, deadLettered: dead, next };
  }

  private async applyIsolatingPoison(client: PoolClient, events: DeliveredEvent[], dead: BatchOutcome['deadLettered'], prepared?: unknown): Promise<void> {
    if (await this.tryApply(client, events, 'batch', prepared)) return;
    this.log.warn({ group: this.group, size: events.length }, 'batch refused a poison event; splitting it to isolate the event');
    await this.bisect(client, events, dead);
  }

  /**
   * Applies `events` in order, halving any part the handler refuses until the poison events are
   * alone (then dead-lettered): O(log n) handler calls per poison event instead of n.
   */
  private async bisect(client: PoolClient, events: DeliveredEvent[], dead: BatchOutcome['deadLettered']): Promise<void> {
    const mid = events.length >> 1;
    for (const part of [events.slice(0, mid), events.slice(mid)]) {
      if (part.length === 0) continue;
      if (part.length === 1) {
        const error = await this.tryApplyOne(client, part[0]);
        if (error)
          dead.push({
            position: part[0].position,
            reason: `projection failed: ${error.message}`,
            payload: JSON.stringify(part[0].event),
            eventId: part[0].event.id,
          });
      } else if (!(await this.tryApply(client, part, 'part'))) await this.bisect(client, part, dead);
    }
  }

  /** True if applied; false if refused as poison (rolled back); rethrows anything else. */
  private async tryApply(client: PoolClient, events: DeliveredEvent[], savepoint: string, prepared?: unknown): Promise<boolean> {
    return (await this.attempt(client, events, savepoint, prepared)) === undefined;
  }

  private async tryApplyOne(client: PoolClient, event: DeliveredEvent): Promise<Error | undefined> {
    return this.attempt(client, [event], 'one');
  }

  private async attempt(client: PoolClient, events: DeliveredEvent[], savepoint: string, prepared?: unknown): Promise<Error | undefined> {
    const tx: SqlTx = client;
    await client.query(`SAVEPOINT ${savepoint}`);
    try {
      await (prepared === undefined ? this.handler(events, tx) : this.handler(events, tx, prepared));
      await client.query(`RELEASE SAVEPOINT ${savepoint}`);
      return undefined;
    } catch (e) {
      if (!isDeadLetterable(e)) throw e;
      await client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
      await client.query(`RELEASE SAVEPOINT ${savepoint}`);
      return e as Error;
    }
  }

  private async deadLetter(client: PoolClient, dead: BatchOutcome['deadLettered']): Promise<void> {
    for (const d of dead) this.log.error({ group: this.group, position: fmt(d.position), reason: d.reason }, 'event dead-lettered');
    await client.query(
      `INSERT INTO event_dead_letter (group_id, stream, partition, log_offset, event_id, payload, reason)
       SELECT $1, s, p, o, i, pl, r FROM unnest($2::text[], $3::int[], $4::bigint[], $5::text[], $6::text[], $7::text[]) AS t(s, p, o, i, pl, r)
       ON CONFLICT (group_id, stream, partition, log_offset) DO NOTHING`,
      [
        this.group,
        dead.map((d) => d.position.stream),
        dead.map((d) => d.position.partition),
        dead.map((d) => d.position.offset.toString()),
        dead.map((d) => d.eventId),
        dead.map((d) => d.payload),
        dead.map((d) => d.reason),
      ],
    );
  }
}

/** Poison-marked and not a transient database failure (which a retry may cure). */
function isDeadLetterable(e: unknown): boolean {
  return isPoisonEventError(e) && !isTransientDbError(e);
}

function idOf(payload: string): string | null {
  try {
    const id = (JSON.parse(payload) as { id?: unknown }).id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

export function fmt(p: LogPosition): string {
  return `${p.stream}/${p.partition}@${p.offset}`;
}

/** Whether a batch's events are exactly the prepared ones (the same objects, in order). */
function sameEvents(prepared: readonly HadronEvent[], batch: readonly DeliveredEvent[]): boolean {
  if (prepared.length !== batch.length) return false;
  for (let i = 0; i < batch.length; i++) if (prepared[i] !== batch[i].event) return false;
  return true;
}

/** A record stored with a type (column / header) that is not its payload's: dead-lettered. */
function storedTypeDiffers(r: PendingRecord, event: HadronEvent): boolean {
  return r.type !== undefined && r.type !== null && r.type !== event.type;
}

/** The event a record delivers to the handler (with its appender's epoch when it was fenced). */
function delivered(r: PendingRecord, event: HadronEvent): DeliveredEvent {
  return r.writerEpoch === undefined ? { event, position: r.position } : { event, position: r.position, writerEpoch: r.writerEpoch };
}

/** Calls one of ConsumeOptions' reporting hooks: a hook that throws must not break a consumer's loop. */
export function callHook<A extends unknown[]>(hook: ((...args: A) => void) | undefined, ...args: A): void {
  try {
    hook?.(...args);
  } catch {
    // ignored: the hook is the caller's (metrics, progress, health)
  }
}
