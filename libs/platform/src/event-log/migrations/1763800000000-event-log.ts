import type { MigrationInterface, QueryRunner } from 'typeorm';

export class EventLog1763800000000 implements MigrationInterface {
  name = 'EventLog1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "event_log" (
      "seq" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "id" text NOT NULL,
      "cluster" text NOT NULL,
      "key" text NOT NULL,
      "payload" text NOT NULL,
      "appended_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_event_log" PRIMARY KEY ("seq"))`);
    await q.query(`CREATE UNIQUE INDEX "event_log_id_key" ON "event_log" ("id")`);
    await q.query(`CREATE TABLE "event_log_checkpoint" (
      "group_id" text NOT NULL,
      "stream" text NOT NULL,
      "partition" integer NOT NULL,
      "next_offset" bigint NOT NULL,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_event_log_checkpoint" PRIMARY KEY ("group_id", "stream", "partition"))`);
    await q.query(`CREATE TABLE "event_dead_letter" (
      "seq" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "group_id" text NOT NULL,
      "stream" text NOT NULL,
      "partition" integer NOT NULL,
      "log_offset" bigint NOT NULL,
      "event_id" text,
      "payload" text NOT NULL,
      "reason" text NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_event_dead_letter" PRIMARY KEY ("seq"))`);
    await q.query(`CREATE UNIQUE INDEX "event_dead_letter_position_key" ON "event_dead_letter" ("group_id", "stream", "partition", "log_offset")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "event_dead_letter"`);
    await q.query(`DROP TABLE "event_log_checkpoint"`);
    await q.query(`DROP TABLE "event_log"`);
  }
}
