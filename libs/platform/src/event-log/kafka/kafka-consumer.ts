import { setTimeout as sleep } from 'node:timers/promises';
import {
  KafkaJSError,
  Partitioners,
  type Admin,
  type Consumer,
  type ConsumerRunConfig,
  type EachBatchPayload,
  type Kafka,
  type KafkaMessage,
  type Producer,
} from 'kafkajs';
import type { Pool } from 'pg';
import type { Logger } from '../../logging/logger';
import type { RepeatedWarnings } from '../../logging/repeats';
import { isTransientDbError } from '../../database/pool';
import { backoffDelay } from '../../runtime/backoff';
import {
  BATCH_RETRY_BACKOFF,
  callHook,
  CheckpointBehindError,
  CheckpointedBatch,
  needsRecord,
  skippedRecord,
  type BatchOutcome,
  type PendingRecord,
} from '../checkpointed-batch';
import type { ConsumeOptions, EventLogConsumer, OwnedPartitions } from '../event-log.port';
import { clusterOfTopic, deadLetterTopic, eventsTopic, type KafkaTopics } from './kafka-topics';

export interface KafkaConsumerTuning {
  /** A dead consumer (kill -9) holds its partitions this long before the group moves on. */
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** Longest idle fetch; also bounds how long stop() waits for an idle fetch to return. */
  maxWaitTimeMs: number;
  /**
   * Fetch sizes. kafkajs defaults (1 MiB per partition) return ~1,300 events per fetch, so a
   * replay's batches never filled; a batch of 5,000 events is ~4 MiB.
   */
  maxBytesPerPartition: number;
  maxBytes: number;
}

export const DEFAULT_CONSUMER_TUNING: KafkaConsumerTuning = {
  sessionTimeoutMs: 10_000,
  heartbeatIntervalMs: 1_000,
  maxWaitTimeMs: 1_000,
  maxBytesPerPartition: 16 * 1024 * 1024,
  maxBytes: 64 * 1024 * 1024,
};

const DEFAULT_BATCH = 2000;
/** Our restarts after a crash kafkajs does not restart from: 1 s, 2 s, 4 s … 30 s, from 1 s again once the group is joined. */
const RESTART_BACKOFF = { baseMs: 1_000, maxMs: 30_000 };

/**
 * Kafka group ids are global to the cluster while topics carry the prefix: two deployments (or two
 * test runs) sharing a cluster must not join each other's groups, so the group id carries it too.
 * The DB checkpoint keeps the plain group name (the database is already per deployment).
 */
export const kafkaGroupId = (prefix: string, group: string): string => `${prefix}.${group}`;

/**
 * Kafka log consumer. The database is the truth, Kafka's committed offset an optimisation:
 * - every chunk of a fetched batch goes through CheckpointedBatch (one DB transaction: skip what the
 *   group already processed, dead-letter, project, advance the checkpoint);
 * - only after that COMMIT are dead letters copied to the DLQ topic and the Kafka offset committed,
 *   so a crash anywhere leaves Kafka behind the DB (redelivery, skipped), never ahead (a gap);
 * - on every partition assignment the consumer seeks to the DB checkpoint where it differs from
 *   Kafka's committed offset, before any record of that assignment is processed.
 * A batch that fails in the database or the handler (a connection lost, the server down, a bug) is
 * tried again in place, after the consumers' common backoff (BATCH_RETRY_BACKOFF), heartbeating
 * meanwhile: the member keeps its partitions and the group does not rebalance. Thrown to kafkajs,
 * such a failure was retried within a fraction of a second and, after a few in a row, restarted the
 * consumer, which rejoined its group: during a database outage the projector logged about 30 lines
 * a second and each group rebalanced every second or two. kafkajs's own errors (a rebalance, a lost
 * coordinator, a failed offset commit) still go to kafkajs, which heals them by rejoining. stop() or
 * a seek ends the wait, the batch's offsets unresolved: fetched again, or read by the next owner
 * from the DB checkpoint.
 */
export class KafkaEventLogConsumer implements EventLogConsumer {
  private consumer?: Consumer;
  private dlqProducer?: Producer;
  private batch?: CheckpointedBatch;
  private opts?: ConsumeOptions;
  private topics: string[] = [];
  private runConfig?: ConsumerRunConfig;
  private stopping = false;
  /** Ends a retry's wait at once when stop() is called. */
  private stopped = new AbortController();
  private inFlight: Promise<void> = Promise.resolve();
  /** Assignment of the current generation, and the seek to DB checkpoints that must precede its first batch. */
  private assignment: Record<string, number[]> = {};
  private aligned: Promise<void> = Promise.resolve();
  /** What this member owns now (metrics, readiness): the assignment, emptied while it rebalances, crashed or stopped. */
  private owning: Record<string, number[]> = {};
  private restartTimer?: NodeJS.Timeout;
  /** Our restarts since the group was last joined. */
  private restarts = 0;
  private types?: ReadonlySet<string>;
  /** `topic/partition` → the checkpoint our last DB commit wrote (the database must not be behind it). */
  private committed = new Map<string, bigint>();
  /** `topic/partition` → failed batch attempts in a row. */
  private failures = new Map<string, number>();

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: () => Promise<Admin>,
    private readonly kafkaTopics: KafkaTopics,
    private readonly prefix: string,
    private readonly pool: Pool,
    private readonly log: Logger,
    /**
     * Where the crashes kafkajs restarts from are warned: while a broker is down, each group
     * crashes every few seconds, so each group's crash is written once per window, then counted
     * (the event log's RepeatedWarnings, which kafkajs's own warnings go through too, and which
     * the event log flushes on a timer and at close).
     */
    private readonly repeats: RepeatedWarnings,
    private readonly tuning: KafkaConsumerTuning = DEFAULT_CONSUMER_TUNING,
  ) {}

  async start(opts: ConsumeOptions): Promise<void> {
    if (this.consumer) throw new Error('kafka consumer already started');
    this.opts = opts;
    this.stopping = false;
    this.stopped = new AbortController();
    this.types = opts.types ? new Set(opts.types) : undefined;
    this.topics = opts.clusters.map((c) => eventsTopic(this.prefix, c));
    this.batch = new CheckpointedBatch(this.pool, opts.group, opts.handler, this.log, opts.batchTimeoutMs);
    await this.kafkaTopics.ensure([...this.topics, ...opts.clusters.map((c) => deadLetterTopic(this.prefix, c))]);

    const consumer = this.kafka.consumer({
      groupId: kafkaGroupId(this.prefix, opts.group),
      sessionTimeout: this.tuning.sessionTimeoutMs,
      heartbeatInterval: this.tuning.heartbeatIntervalMs,
      maxWaitTimeInMs: this.tuning.maxWaitTimeMs,
      maxBytesPerPartition: this.tuning.maxBytesPerPartition,
      maxBytes: this.tuning.maxBytes,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    this.dlqProducer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      // Runs synchronously inside kafkajs's join, before the first fetch of the new generation.
      this.restarts = 0;
      this.assignment = payload.memberAssignment;
      this.owning = payload.memberAssignment;
      this.committed.clear();
      this.aligned = this.alignWithCheckpoints(payload.memberAssignment);
      this.aligned.catch(() => undefined); // surfaced (and retried) by the next batch
      this.log.info({ group: opts.group, assignment: payload.memberAssignment }, 'kafka consumer joined its group');
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.owning = {};
      this.onCrash(payload.error, payload.restart);
    });
    // Partitions are revoked until the next GROUP_JOIN says what this member owns.
    consumer.on(consumer.events.REBALANCING, () => (this.owning = {}));
    consumer.on(consumer.events.STOP, () => (this.owning = {}));

    await Promise.all([consumer.connect(), this.dlqProducer.connect()]);
    await consumer.subscribe({ topics: this.topics, fromBeginning: true });
    this.runConfig = {
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 1,
      eachBatch: (payload) => {
        const run = this.inFlight.then(() => this.onBatchReporting(payload));
        this.inFlight = run.catch(() => undefined);
        return run;
      },
    };
    // Resolves once the consumer has joined the group (or crashed, then kafkajs restarts it).
    await consumer.run(this.runConfig);
  }

  /** Finishes the chunk in flight (DB commit, DLQ, Kafka commit), then leaves the group. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    this.owning = {};
    clearTimeout(this.restartTimer);
    await this.inFlight;
    await this.consumer?.disconnect().catch((e) => this.log.warn({ err: (e as Error).message }, 'kafka consumer disconnect failed'));
    await this.dlqProducer?.disconnect().catch(() => undefined);
    this.consumer = undefined;
    this.dlqProducer = undefined;
  }

  /** Records in the subscribed topics past the group's DB checkpoint (Σ high watermark − checkpoint). */
  async lag(): Promise<bigint> {
    const batch = this.batch;
    if (!batch) return 0n;
    const admin = await this.admin();
    let lag = 0n;
    for (const topic of this.topics) {
      const [offsets, done] = await Promise.all([admin.fetchTopicOffsets(topic), batch.checkpoints(topic)]);
      for (const o of offsets) {
        const behind = BigInt(o.high) - (done.get(o.partition) ?? BigInt(o.low));
        if (behind > 0n) lag += behind;
      }
    }
    return lag;
  }

  /** The partitions this member owns (its last GROUP_JOIN), each with high watermark − DB checkpoint. */
  async owned(): Promise<OwnedPartitions> {
    const streams = [...this.topics];
    const batch = this.batch;
    const owning = Object.entries(this.owning).filter(([, ps]) => ps.length > 0);
    if (!batch || owning.length === 0) return { streams, partitions: [] };
    const admin = await this.admin();
    const partitions: OwnedPartitions['partitions'] = [];
    for (const [topic, ps] of owning) {
      const [offsets, done] = await Promise.all([admin.fetchTopicOffsets(topic), batch.checkpoints(topic)]);
      const byPartition = new Map(offsets.map((o) => [o.partition, o]));
      for (const partition of [...ps].sort((a, b) => a - b)) {
        const o = byPartition.get(partition);
        if (!o) continue;
        const behind = BigInt(o.high) - (done.get(partition) ?? BigInt(o.low));
        partitions.push({ stream: topic, partition, lag: behind > 0n ? behind : 0n });
      }
    }
    return { streams, partitions };
  }

  private async onBatchReporting(p: EachBatchPayload): Promise<void> {
    const { topic, partition } = p.batch;
    const key = `${topic}/${partition}`;
    for (;;) {
      try {
        await this.onBatch(p);
        this.failures.delete(key);
        return;
      } catch (e) {
        if (e instanceof KafkaJSError) throw e; // kafkajs's own: it rejoins, re-fetches, retries
        const failures = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, failures);
        const transient = isTransientDbError(e);
        const delay = backoffDelay(failures, BATCH_RETRY_BACKOFF);
        this.log.error(
          { err: (e as Error).message, group: this.opts?.group, topic, partition, transient, failures, retryInMs: delay },
          'kafka consumer batch failed; will retry',
        );
        // A reporting hook must not change what kafkajs sees.
        callHook(this.opts?.onError, { error: e as Error, transient, consecutiveFailures: failures, stream: topic, partition });
        if (!(await this.waitBeforeRetry(p, delay))) return;
      }
    }
  }

  /**
   * Waits `ms` before a failed batch is tried again, heartbeating so the group keeps this member.
   * False when the batch is not to be tried again here: the consumer is stopping, kafkajs no longer
   * runs it, or a seek made it stale. A rebalance a heartbeat learns of is thrown (kafkajs rejoins).
   */
  private async waitBeforeRetry(p: EachBatchPayload, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (this.stopping || !p.isRunning() || p.isStale()) return false;
      const left = until - Date.now();
      if (left <= 0) return true;
      try {
        await sleep(Math.min(left, this.tuning.heartbeatIntervalMs), undefined, { signal: this.stopped.signal });
      } catch {
        return false; // stop() was called
      }
      await p.heartbeat();
    }
  }

  private async onBatch(p: EachBatchPayload): Promise<void> {
    const { batch: fetched } = p;
    if (this.stopping || !p.isRunning() || p.isStale()) return;
    try {
      await this.aligned;
    } catch (e) {
      this.aligned = this.alignWithCheckpoints(this.assignment);
      this.aligned.catch(() => undefined);
      throw e;
    }
    const { topic, partition } = fetched;
    const maxBatch = Math.max(1, this.opts!.maxBatchSize ?? DEFAULT_BATCH);
    // Chunks of up to maxBatch records the group reads (skipped ones ride along for free).
    for (let i = 0; i < fetched.messages.length;) {
      // A pending seek (a new assignment moved this partition) makes the rest of this batch stale.
      if (this.stopping || !p.isRunning() || p.isStale()) return;
      const chunk: KafkaMessage[] = [];
      const records: PendingRecord[] = [];
      let read = 0;
      for (; i < fetched.messages.length && read < maxBatch; i++) {
        const m = fetched.messages[i];
        const position = { stream: topic, partition, offset: BigInt(m.offset) };
        const type = headerText(m.headers?.['event-type']);
        chunk.push(m);
        // A type this group does not read: its bytes were fetched, but never decoded nor parsed.
        if (!needsRecord(this.types, type)) records.push(skippedRecord(position));
        else {
          const epoch = headerText(m.headers?.['writer-epoch']);
          // Informational (audits, tests): a header that is not a plain number is left out, never fatal.
          records.push({
            position,
            payload: m.value?.toString('utf8') ?? '',
            type,
            writerEpoch: epoch !== null && /^[0-9]{1,19}$/.test(epoch) ? BigInt(epoch) : undefined,
          });
          read++;
        }
      }
      const key = `${topic}/${partition}`;
      const believed = this.committed.get(key);
      let processed: { outcome: BatchOutcome; rebalance?: unknown };
      try {
        processed = await this.processWithHeartbeats(p, () =>
          this.batch!.process(topic, records, believed === undefined ? undefined : new Map([[partition, believed]])),
        );
      } catch (e) {
        if (!(e instanceof CheckpointBehindError)) throw e;
        // Our earlier commit is gone from the database: read again from what it holds.
        this.log.warn({ group: this.opts!.group, topic, partition, stored: e.stored.toString(), committed: e.believed.toString() }, e.message);
        this.committed.set(key, e.stored);
        this.consumer!.seek({ topic, partition, offset: e.stored.toString() });
        return;
      }
      const { outcome, rebalance } = processed;
      // --- the DB transaction has committed; everything below only tells Kafka about it ---
      if (outcome.deadLettered.length > 0) await this.publishDeadLetters(topic, chunk, outcome);
      this.opts!.onCommitted?.({ count: outcome.processed, deadLettered: outcome.deadLettered.length, positions: records.map((r) => r.position) });
      // next ≥ last offset + 1; it is further only if another member already processed beyond it.
      const next = outcome.next.get(partition) ?? BigInt(chunk[chunk.length - 1].offset) + 1n;
      this.committed.set(key, next);
      p.resolveOffset((next - 1n).toString());
      const committing = p.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next.toString() }] }] });
      if (rebalance) {
        // Best effort: this member's generation may already be gone. Then kafkajs rejoins.
        await committing.catch(() => undefined);
        throw rebalance;
      }
      await committing;
    }
    // This fetch reached the end of its partition (the high watermark then): the group may be at the log's tail.
    if (fetched.offsetLag() === '0') callHook(this.opts!.onTail);
  }

  /**
   * Heartbeats keep flowing while a long transaction runs, so the group does not evict a busy
   * member. A rebalance noticed meanwhile is returned, to be raised once the chunk is committed.
   */
  private async processWithHeartbeats(p: EachBatchPayload, work: () => Promise<BatchOutcome>): Promise<{ outcome: BatchOutcome; rebalance?: unknown }> {
    let rebalance: unknown;
    const timer = setInterval(() => {
      p.heartbeat().catch((e) => (rebalance ??= e));
    }, this.tuning.heartbeatIntervalMs);
    try {
      const outcome = await work();
      return { outcome, rebalance };
    } finally {
      clearInterval(timer);
    }
  }

  /** After the DB commit: a copy of each dead-lettered record, original bytes, with the reason. */
  private async publishDeadLetters(topic: string, chunk: KafkaMessage[], outcome: BatchOutcome): Promise<void> {
    const byOffset = new Map(chunk.map((m) => [m.offset, m]));
    const dlq = deadLetterTopic(this.prefix, clusterOfTopic(this.prefix, topic));
    try {
      await this.dlqProducer!.send({
        topic: dlq,
        acks: -1,
        messages: outcome.deadLettered.map((d) => {
          const original = byOffset.get(d.position.offset.toString());
          return {
            key: original?.key ?? null,
            value: original?.value ?? d.payload,
            headers: {
              reason: d.reason,
              group: this.opts!.group,
              'source-topic': topic,
              'source-partition': String(d.position.partition),
              'source-offset': d.position.offset.toString(),
              ...(d.eventId ? { 'event-id': d.eventId } : {}),
            },
          };
        }),
      });
    } catch (e) {
      // The records are already in event_dead_letter (committed) and will not be redelivered to us.
      this.log.error(
        { err: (e as Error).message, topic: dlq, positions: outcome.deadLettered.map((d) => `${topic}/${d.position.partition}@${d.position.offset}`) },
        'could not copy dead letters to the DLQ topic; they remain in event_dead_letter',
      );
      throw e;
    }
  }

  /**
   * The DB checkpoint is the truth. Where Kafka's committed offset differs (a crash between the DB
   * commit and the Kafka commit leaves the DB ahead; a restored or rebuilt DB leaves it behind), seek.
   */
  private async alignWithCheckpoints(assignment: Record<string, number[]>): Promise<void> {
    const admin = await this.admin();
    const group = this.opts!.group;
    for (const [topic, partitions] of Object.entries(assignment)) {
      if (partitions.length === 0) continue;
      const [done, committedList, offsets] = await Promise.all([
        this.batch!.checkpoints(topic),
        admin.fetchOffsets({ groupId: kafkaGroupId(this.prefix, group), topics: [topic] }),
        admin.fetchTopicOffsets(topic),
      ]);
      const committed = new Map((committedList[0]?.partitions ?? []).filter((c) => BigInt(c.offset) >= 0n).map((c) => [c.partition, BigInt(c.offset)]));
      const low = new Map(offsets.map((o) => [o.partition, BigInt(o.low)]));
      for (const partition of partitions) {
        const kafkaNext = committed.get(partition);
        // No DB row: nothing of this partition was processed into this database → start at the beginning.
        const dbNext = done.get(partition) ?? low.get(partition) ?? 0n;
        if (kafkaNext === undefined ? dbNext === (low.get(partition) ?? 0n) : kafkaNext === dbNext) continue;
        const fields = { group, topic, partition, kafkaCommitted: kafkaNext?.toString() ?? null, dbCheckpoint: dbNext.toString() };
        if (kafkaNext !== undefined && dbNext < kafkaNext)
          this.log.warn(fields, 'database checkpoint is behind the Kafka offset; replaying from the database checkpoint');
        else this.log.info(fields, 'seeking to the database checkpoint');
        this.consumer!.seek({ topic, partition, offset: dbNext.toString() });
      }
    }
  }

  /** kafkajs restarts after retriable crashes by itself; after any other crash we restart it, with backoff. */
  private onCrash(error: Error, restartingItself: boolean): void {
    if (this.stopping) return;
    if (restartingItself) {
      const group = this.opts?.group;
      const msg = 'kafka consumer crashed; kafkajs restarts it';
      this.repeats.warn({ err: error.message, group }, msg, `${msg}\0${group}\0${error.message}`);
      return;
    }
    const delay = backoffDelay(++this.restarts, RESTART_BACKOFF);
    this.log.error({ err: error.message, group: this.opts?.group, restartInMs: delay }, 'kafka consumer crashed with a non-retriable error; restarting it');
    this.restartTimer = setTimeout(() => {
      const consumer = this.consumer;
      if (this.stopping || !consumer || !this.runConfig) return;
      consumer
        .connect()
        .then(() => consumer.run(this.runConfig))
        .catch((e) => this.onCrash(e as Error, false));
    }, delay);
  }
}

function headerText(v: Buffer | string | (Buffer | string)[] | undefined): string | null {
  if (v === undefined) return null;
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? null : one.toString();
}
