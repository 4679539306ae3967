import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** The Postgres event log (embedded default). Append-only: nothing is ever deleted from it. */
@Entity({ name: 'event_log' })
@Index('event_log_id_key', ['id'], { unique: true })
export class EventLogEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  seq: string;

  @Column({ type: 'text' })
  id: string;

  @Column({ type: 'text' })
  cluster: string;

  @Column({ type: 'text' })
  key: string;

  /** Kept as text, not jsonb: the log stores what was appended, byte for byte, valid or not. */
  @Column({ type: 'text' })
  payload: string;

  /** The event's type when the appender knew it; consumers skip types they do not read unparsed. */
  @Column({ type: 'text', nullable: true })
  type: string | null;

  /** The fencing epoch of the appender (the indexer's cluster lease) that inserted the row; null when unfenced. */
  @Column({ type: 'bigint', name: 'writer_epoch', nullable: true })
  writerEpoch: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'appended_at' })
  appendedAt: Date;
}

/** Where each consumer group is in each stream/partition; written in the same transaction as its rows. */
@Entity({ name: 'event_log_checkpoint' })
export class EventLogCheckpointEntity {
  @PrimaryColumn({ type: 'text', name: 'group_id' })
  groupId: string;

  @PrimaryColumn({ type: 'text' })
  stream: string;

  @PrimaryColumn({ type: 'int' })
  partition: number;

  /** The next offset to process (Postgres: seq; Kafka: offset). */
  @Column({ type: 'bigint', name: 'next_offset' })
  nextOffset: string;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}

/** Events a consumer could not use, with the reason. The stream goes on without them. */
@Entity({ name: 'event_dead_letter' })
@Index('event_dead_letter_position_key', ['groupId', 'stream', 'partition', 'logOffset'], { unique: true })
export class EventDeadLetterEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  seq: string;

  @Column({ type: 'text', name: 'group_id' })
  groupId: string;

  @Column({ type: 'text' })
  stream: string;

  @Column({ type: 'int' })
  partition: number;

  @Column({ type: 'bigint', name: 'log_offset' })
  logOffset: string;

  @Column({ type: 'text', name: 'event_id', nullable: true })
  eventId: string | null;

  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'text' })
  reason: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}

export const eventLogEntities = [EventLogEntity, EventLogCheckpointEntity, EventDeadLetterEntity];
