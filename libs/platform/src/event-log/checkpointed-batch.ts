import { parseHadronEvent, type ParseResult } from '@hadron/contracts';
import type { Pool, PoolClient } from 'pg';
import { isTransientDbError } from '../database/pool';
import type { Logger } from '../logging/logger';
import type { BatchHandler, DeliveredEvent, LogPosition, SqlTx } from './event-log.port';

/** A record read from a log partition, not yet validated. */
export interface PendingRecord {
  position: LogPosition;
  payload: string;
  /** The payload already checked against the contracts (a consumer may do it while the previous batch commits). */
  parsed?: ParseResult;
}

export function validatedRecord(position: LogPosition, payload: string): PendingRecord {
  return { position, payload, parsed: parseHadronEvent(payload) };
}

export interface BatchOutcome {
  /** Records at or past the checkpoint that this call processed (valid + dead-lettered). */
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
 * If the handler throws for a non-transient reason, the batch is retried one event at a time
 * (each under a savepoint) so the poison event is dead-lettered and the rest still apply.
 */
export class CheckpointedBatch {
  constructor(
    private readonly pool: Pool,
    private readonly group: string,
    private readonly handler: BatchHandler,
    private readonly log: Logger,
  ) {}

  async process(stream: string, records: readonly PendingRecord[]): Promise<BatchOutcome> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const outcome = await this.processInTx(client, stream, records);
      await client.query('COMMIT');
      return outcome;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
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

  private async processInTx(client: PoolClient, stream: string, records: readonly PendingRecord[]): Promise<BatchOutcome> {
    const partitions = [...new Set(records.map((r) => r.position.partition))];
    const { rows } = await client.query<{ partition: number; next_offset: string }>(
      `SELECT partition, next_offset FROM event_log_checkpoint
        WHERE group_id = $1 AND stream = $2 AND partition = ANY($3::int[]) FOR UPDATE`,
      [this.group, stream, partitions],
    );
    const next = new Map<number, bigint>(rows.map((r) => [r.partition, BigInt(r.next_offset)]));
    const fresh = records.filter((r) => r.position.offset >= (next.get(r.position.partition) ?? 0n));

    const valid: DeliveredEvent[] = [];
    const dead: BatchOutcome['deadLettered'] = [];
    for (const r of fresh) {
      const parsed = r.parsed ?? parseHadronEvent(r.payload);
      if (parsed.ok) valid.push({ event: parsed.event, position: r.position });
      else dead.push({ position: r.position, reason: `invalid payload: ${parsed.reason}`, payload: r.payload, eventId: idOf(r.payload) });
    }

    if (valid.length > 0) await this.applyIsolatingPoison(client, valid, dead);
    if (dead.length > 0) await this.deadLetter(client, dead);

    for (const r of fresh) {
      const after = r.position.offset + 1n;
      if (after > (next.get(r.position.partition) ?? 0n)) next.set(r.position.partition, after);
    }
    const touched = [...next].filter(([p]) => partitions.includes(p));
    if (fresh.length > 0) {
      await client.query(
        `INSERT INTO event_log_checkpoint (group_id, stream, partition, next_offset, updated_at)
         SELECT $1, $2, p, o, now() FROM unnest($3::int[], $4::bigint[]) AS t(p, o)
         ON CONFLICT (group_id, stream, partition)
         DO UPDATE SET next_offset = GREATEST(event_log_checkpoint.next_offset, EXCLUDED.next_offset), updated_at = now()`,
        [this.group, stream, touched.map(([p]) => p), touched.map(([, o]) => o.toString())],
      );
    }
    return { processed: fresh.length, deadLettered: dead, next };
  }

  private async applyIsolatingPoison(client: PoolClient, events: DeliveredEvent[], dead: BatchOutcome['deadLettered']): Promise<void> {
    const tx: SqlTx = client;
    await client.query('SAVEPOINT batch');
    try {
      await this.handler(events, tx);
      await client.query('RELEASE SAVEPOINT batch');
      return;
    } catch (e) {
      if (isTransientDbError(e)) throw e;
      await client.query('ROLLBACK TO SAVEPOINT batch');
      this.log.warn({ err: (e as Error).message, group: this.group, size: events.length }, 'batch failed; retrying event by event to isolate the poison event');
    }
    for (const d of events) {
      await client.query('SAVEPOINT one');
      try {
        await this.handler([d], tx);
        await client.query('RELEASE SAVEPOINT one');
      } catch (e) {
        if (isTransientDbError(e)) throw e;
        await client.query('ROLLBACK TO SAVEPOINT one');
        dead.push({ position: d.position, reason: `projection failed: ${(e as Error).message}`, payload: JSON.stringify(d.event), eventId: d.event.id });
      }
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
