import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event's `type` beside its payload, written on append, so a consumer skips the events its
 * projection does not read without fetching or parsing their payloads. Nullable: rows appended
 * before this column (or raw records without a type) are parsed by every consumer, as before.
 */
export class EventLogType1763800000002 implements MigrationInterface {
  name = 'EventLogType1763800000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "event_log" ADD "type" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "event_log" DROP COLUMN "type"`);
  }
}
