import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fencing epoch of the appender that inserted each row (the indexer's cluster lease epoch):
 * within a cluster it never goes down in seq order, so a takeover can be audited from the log.
 * Nullable: rows appended before it, or by an unfenced appender, carry none.
 */
export class EventLogWriterEpoch1763800000003 implements MigrationInterface {
  name = 'EventLogWriterEpoch1763800000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "event_log" ADD "writer_epoch" bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "event_log" DROP COLUMN "writer_epoch"`);
  }
}
