import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The indexer's own tables (schema `indexer`). Written only by the indexer; the cursor and the
 * per-pool state move together, in one transaction, only after the events up to them are durable
 * in the event log.
 */

/** Per cluster: how far the chain is indexed, and the account snapshot of the cycle in progress. */
@Entity({ schema: 'indexer', name: 'cluster_cursor' })
export class IndexerClusterCursorEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  /** Every transaction of both programs with slot ≤ this is processed (null: the backfill has not committed a chunk). */
  @Column({ type: 'bigint', name: 'through_slot', nullable: true })
  throughSlot: string | null;

  /** The last transaction processed (chain order). */
  @Column({ type: 'text', name: 'last_signature', nullable: true })
  lastSignature: string | null;

  /** Where the backfill started (slot), fixed at the first run. */
  @Column({ type: 'bigint', name: 'start_slot', nullable: true })
  startSlot: string | null;

  @Column({ type: 'boolean', name: 'backfill_done', default: false })
  backfillDone: boolean;

  /** The cycle in progress: target slot, mode and the account snapshot it attributes (null between cycles). */
  @Column({ type: 'jsonb', nullable: true })
  cycle: unknown;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}

/** Per cluster and program: the newest signature of that program's list at or below the cluster cursor (getSignaturesForAddress `until`). */
@Entity({ schema: 'indexer', name: 'program_cursor' })
export class IndexerProgramCursorEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  @PrimaryColumn({ type: 'text', name: 'program_id' })
  programId: string;

  @Column({ type: 'bigint' })
  slot: string;

  @Column({ type: 'text' })
  signature: string;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}

/** Per pool: static facts, tokens, the state in effect at the cursor, and what was last published. */
@Entity({ schema: 'indexer', name: 'pool' })
export class IndexerPoolEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  @PrimaryColumn({ type: 'text' })
  config: string;

  @Column({ type: 'text', name: 'program_id' })
  programId: string;

  @Column({ type: 'bigint', name: 'discovered_slot' })
  discoveredSlot: string;

  /** PoolRecord (pipeline/pool-state.ts) as JSON. */
  @Column({ type: 'jsonb' })
  record: unknown;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt: Date;
}

/**
 * The GAP LEDGER: transactions the RPC listed but would not serve after every retry. The cursor
 * passed them only with a row here; they are fetched again later and their events appended then.
 */
@Entity({ schema: 'indexer', name: 'gap' })
@Index('gap_due_idx', ['cluster', 'nextAttemptAt'])
export class IndexerGapEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  @PrimaryColumn({ type: 'text' })
  signature: string;

  @Column({ type: 'bigint' })
  slot: string;

  @Column({ type: 'integer', name: 'tx_index', nullable: true })
  txIndex: number | null;

  @Column({ type: 'integer' })
  attempts: number;

  @Column({ type: 'text', name: 'last_error' })
  lastError: string;

  /** Per-pool state in effect at the gap's position, to build its events when it is finally fetched. */
  @Column({ type: 'jsonb' })
  state: unknown;

  /** Programs whose listing named it: their pools' events built while it is open may miss its effect. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  programs: string[];

  @Column({ type: 'timestamptz', name: 'first_seen_at', default: () => 'now()' })
  firstSeenAt: Date;

  @Column({ type: 'timestamptz', name: 'next_attempt_at' })
  nextAttemptAt: Date;
}

/**
 * Transactions of a pool HELD back: discovery found it but its mint did not read yet, so it cannot
 * be announced (decimals are never guessed). The cursor moves on for every other pool; these are
 * replayed in chain order (slot, then position in the chunk) once the pool is announced.
 */
@Entity({ schema: 'indexer', name: 'held_tx' })
export class IndexerHeldTxEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  @PrimaryColumn({ type: 'text' })
  pool: string;

  @PrimaryColumn({ type: 'text' })
  signature: string;

  @Column({ type: 'bigint' })
  slot: string;

  /** Chain order within the slot (a slot is never split across chunks). */
  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'integer', name: 'tx_index', nullable: true })
  txIndex: number | null;

  @Column({ type: 'bigint', name: 'block_time', nullable: true })
  blockTime: string | null;

  @Column({ type: 'timestamptz', name: 'held_at', default: () => 'now()' })
  heldAt: Date;
}

/** Instructions that decoded to no event, and why (never silently dropped). */
@Entity({ schema: 'indexer', name: 'problem' })
export class IndexerProblemEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  @PrimaryColumn({ type: 'text', name: 'event_id' })
  eventId: string;

  @PrimaryColumn({ type: 'text' })
  code: string;

  @Column({ type: 'text', nullable: true })
  pool: string | null;

  @Column({ type: 'bigint' })
  slot: string;

  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'timestamptz', name: 'first_seen_at', default: () => 'now()' })
  firstSeenAt: Date;
}

/**
 * The cluster LEASE: the fencing epoch of the active indexer. Taking the cluster lock bumps it;
 * every append (and the cursor commit with it) runs while holding this row FOR SHARE with the
 * holder's epoch, so a superseded holder's appends are refused and the new holder's bump waits
 * for the old holder's append in flight.
 */
@Entity({ schema: 'indexer', name: 'lease' })
export class IndexerLeaseEntity {
  @PrimaryColumn({ type: 'text' })
  cluster: string;

  @Column({ type: 'bigint' })
  epoch: string;

  /** Who took it: application name, host and pid (for operators). */
  @Column({ type: 'text' })
  holder: string;

  @Column({ type: 'timestamptz', name: 'acquired_at', default: () => 'now()' })
  acquiredAt: Date;
}

export const indexerEntities = [
  IndexerClusterCursorEntity,
  IndexerProgramCursorEntity,
  IndexerPoolEntity,
  IndexerGapEntity,
  IndexerHeldTxEntity,
  IndexerProblemEntity,
  IndexerLeaseEntity,
];
