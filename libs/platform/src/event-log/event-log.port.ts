import type { Cluster, HadronEvent } from '@hadron/contracts';
import type { Pool } from 'pg';

/**
 * The event log: the source of truth every read table is rebuilt from (DESIGN §1).
 * Two adapters implement it: Postgres (embedded default) and Kafka. Both are checked by one
 * contract suite (event-log.contract.ts).
 */

/** Minimal SQL access inside the consumer's database transaction. */
export interface SqlTx {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A record as the log stores it, before validation. Used to append and by tests to inject bad payloads. */
export interface RawLogRecord {
  id: string;
  cluster: Cluster;
  /** Partition/order key: the pool config address. */
  key: string;
  /** JSON text of the event. */
  payload: string;
  /**
   * The event's `type`, stored beside the payload (Postgres column `type`, Kafka header
   * `event-type`) so a consumer can skip events it does not read without parsing them. Null or
   * absent: unknown, every consumer parses the payload.
   */
  type?: string | null;
}

export interface EventLogProducer {
  /**
   * Appends events; resolves once they are durable. Idempotent by event id on the Postgres log;
   * on Kafka a re-append can duplicate a record, which projections ignore (they key by event id).
   * Order is kept per key (pool) within one call and across calls from one producer.
   */
  append(events: readonly HadronEvent[], options?: AppendOptions): Promise<void>;
  appendRaw(records: readonly RawLogRecord[], options?: AppendOptions): Promise<void>;
  close(): Promise<void>;
}

export interface AppendOptions {
  /**
   * The fencing epoch of the writer (the indexer's cluster lease), stored with each record
   * (Postgres column `writer_epoch`, Kafka header `writer-epoch`): in log order it never goes
   * down within a cluster (Kafka: a partition), which is how takeovers are audited and tested.
   */
  writerEpoch?: bigint;
}

/** Where a delivered event sits in the log; the consumer checkpoints it with the batch. */
export interface LogPosition {
  /** `event_log` for the Postgres log, the topic name for Kafka. */
  stream: string;
  partition: number;
  /** Postgres: sequence number; Kafka: offset. */
  offset: bigint;
}

export interface DeliveredEvent {
  event: HadronEvent;
  position: LogPosition;
  /** The lease epoch its appender was fenced by (AppendOptions.writerEpoch), when it was. */
  writerEpoch?: bigint;
}

/**
 * Applies a batch inside the consumer's transaction. `prepared`, when given, is what this
 * handler's `prepare` returned for exactly these events (the same objects, in the same order).
 */
export interface BatchHandler {
  (events: readonly DeliveredEvent[], tx: SqlTx, prepared?: unknown): Promise<void>;
  /**
   * Optional: the part of a batch's work that needs no database (building its input rows, say),
   * pure in the events. A consumer that reads ahead runs it on the next page while the current
   * batch is in the database, and hands its result back only for exactly the events it was given;
   * otherwise (another checkpoint, a dead-lettered record, a poison split) the handler runs
   * without it. A throw is not an error here: the batch just runs without it.
   */
  prepare?: (events: readonly DeliveredEvent[]) => unknown;
}

/**
 * Marks an error as "this event can never be applied" (a poison event). Only such errors, and
 * payloads that fail the contract, are dead-lettered; any other error stalls the consumer (it
 * retries with backoff and reports the failure) so a bug or a broken schema never silently
 * dead-letters the stream. A global symbol, so an app's error class carries it without this
 * library importing the app (and it survives duplicated module instances).
 */
export const POISON_EVENT = Symbol.for('hadron.event-log.poison-event');

export function isPoisonEventError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { [POISON_EVENT]?: unknown })[POISON_EVENT] === true;
}

/** A failed batch attempt, reported to ConsumeOptions.onError (the consumer retries it). */
export interface ConsumeFailure {
  error: Error;
  /** Connection loss, deadlock, serialization failure…: expected to pass by itself. */
  transient: boolean;
  /** Failed attempts in a row on this stream/partition (reset by a batch of it that commits). */
  consecutiveFailures: number;
  /** The stream and partition whose batch failed (Postgres: event_log/0; Kafka: the topic/partition). */
  stream: string;
  partition: number;
}

export interface ConsumeOptions {
  /** Consumer group: one per projection version. A new group replays from the beginning. */
  group: string;
  clusters: readonly Cluster[];
  /** Called inside a database transaction; the group's checkpoint is written in the same transaction. */
  handler: BatchHandler;
  /**
   * Event types the handler reads; unset = all. A record whose stored type (RawLogRecord.type) is
   * another is not parsed nor passed to the handler, but still advances the checkpoint and counts
   * in lag. A record of unknown type is always parsed, so an invalid payload without a type is
   * dead-lettered by every group; one stored with a type only by the groups that read that type.
   */
  types?: readonly string[];
  /** Records of the types read per batch (skipped ones do not count, so batches stay full). */
  maxBatchSize?: number;
  /**
   * How long one batch may run, from asking for a connection to COMMIT (default 5 minutes; 0: no deadline). Past it, the
   * batch's database session is ended and the batch fails (BatchTimeoutError) and is retried, so a
   * stuck batch is reported and cleared instead of holding the consumer silently. Each retry in a
   * row gets twice the last deadline, up to 8× this (MAX_DEADLINE_DOUBLINGS), so a batch that is
   * merely long commits in the end.
   */
  batchTimeoutMs?: number;
  /** Called after each committed batch (progress, metrics). */
  onCommitted?: (info: { count: number; deadLettered: number; positions: readonly LogPosition[] }) => void;
  /** Called after each failed batch attempt, before the retry (metrics, health). */
  onError?: (failure: ConsumeFailure) => void;
  /**
   * Called when the consumer has applied everything the log held when it last looked: the
   * Postgres consumers when a read found nothing past the group's position, the Kafka consumer
   * when a fetch it applied reached its partition's end (other partitions may still lag). A
   * build's "caught up" check (its lag, across partitions) runs on it at once, where otherwise a
   * log ending on a full batch left the check to a timer (a second without commits).
   */
  onTail?: () => void;
}

export interface EventLogConsumer {
  /** Starts consuming; resolves once the consumer is running. Events arrive in order per key. */
  start(options: ConsumeOptions): Promise<void>;
  /** Finishes the in-flight batch, commits it, and stops. */
  stop(): Promise<void>;
  /** Events in the log not yet processed by this group (for readiness/lag and progress bars). */
  lag(): Promise<bigint>;
  /**
   * This consumer's share of its group's work right now — not the group's: the partitions it owns
   * and each one's lag. A replica that owns nothing (a Kafka member beyond the partition count, a
   * Postgres standby) lists no partition, so "idle" never reads as "lag 0".
   */
  owned(): Promise<OwnedPartitions>;
}

export interface OwnedPartitions {
  /** Every stream the group reads (Kafka topics; `event_log`), owned or not. */
  streams: string[];
  /** Owned now; `lag` = records past the group's checkpoint (high watermark − processed offset). */
  partitions: Array<{ stream: string; partition: number; lag: bigint }>;
}

export interface EventLogSettings {
  /** Set → Kafka; unset → the Postgres log in the same database (embedded default). */
  kafkaBrokers?: string[];
  kafkaClientId: string;
  kafkaTopicPrefix: string;
  kafkaTopicPartitions: number;
}

/** An opened log: chosen by openEventLog (event-log.factory.ts); apps and tests ask there. */
export interface EventLog {
  kind: 'postgres' | 'kafka';
  producer(): Promise<EventLogProducer>;
  /** `pool`/`url`: the database holding the consumer's rows and checkpoints. */
  consumer(pool: Pool, url: string): EventLogConsumer;
  close(): Promise<void>;
}
