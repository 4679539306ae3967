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
}

export interface EventLogProducer {
  /**
   * Appends events; resolves once they are durable. Idempotent by event id on the Postgres log;
   * on Kafka a re-append can duplicate a record, which projections ignore (they key by event id).
   * Order is kept per key (pool) within one call and across calls from one producer.
   */
  append(events: readonly HadronEvent[]): Promise<void>;
  appendRaw(records: readonly RawLogRecord[]): Promise<void>;
  close(): Promise<void>;
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
}

export type BatchHandler = (events: readonly DeliveredEvent[], tx: SqlTx) => Promise<void>;

export interface ConsumeOptions {
  /** Consumer group: one per projection version. A new group replays from the beginning. */
  group: string;
  clusters: readonly Cluster[];
  /** Called inside a database transaction; the group's checkpoint is written in the same transaction. */
  handler: BatchHandler;
  maxBatchSize?: number;
  /** Called after each committed batch (progress, metrics). */
  onCommitted?: (info: { count: number; deadLettered: number; positions: readonly LogPosition[] }) => void;
}

export interface EventLogConsumer {
  /** Starts consuming; resolves once the consumer is running. Events arrive in order per key. */
  start(options: ConsumeOptions): Promise<void>;
  /** Finishes the in-flight batch, commits it, and stops. */
  stop(): Promise<void>;
  /** Events in the log not yet processed by this group (for readiness/lag and progress bars). */
  lag(): Promise<bigint>;
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

