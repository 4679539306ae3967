import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Indexer1764000000000 implements MigrationInterface {
  name = 'Indexer1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS "indexer"`);
    await q.query(`CREATE TABLE "indexer"."cluster_cursor" (
      "cluster" text NOT NULL,
      "through_slot" bigint,
      "last_signature" text,
      "start_slot" bigint,
      "backfill_done" boolean NOT NULL DEFAULT false,
      "cycle" jsonb,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_cluster_cursor" PRIMARY KEY ("cluster"))`);
    await q.query(`CREATE TABLE "indexer"."program_cursor" (
      "cluster" text NOT NULL,
      "program_id" text NOT NULL,
      "slot" bigint NOT NULL,
      "signature" text NOT NULL,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_program_cursor" PRIMARY KEY ("cluster", "program_id"))`);
    await q.query(`CREATE TABLE "indexer"."pool" (
      "cluster" text NOT NULL,
      "config" text NOT NULL,
      "program_id" text NOT NULL,
      "discovered_slot" bigint NOT NULL,
      "record" jsonb NOT NULL,
      "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_pool" PRIMARY KEY ("cluster", "config"))`);
    await q.query(`CREATE TABLE "indexer"."gap" (
      "cluster" text NOT NULL,
      "signature" text NOT NULL,
      "slot" bigint NOT NULL,
      "tx_index" integer,
      "attempts" integer NOT NULL,
      "last_error" text NOT NULL,
      "state" jsonb NOT NULL,
      "first_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      CONSTRAINT "PK_indexer_gap" PRIMARY KEY ("cluster", "signature"))`);
    await q.query(`CREATE INDEX "gap_due_idx" ON "indexer"."gap" ("cluster", "next_attempt_at")`);
    await q.query(`CREATE TABLE "indexer"."problem" (
      "cluster" text NOT NULL,
      "event_id" text NOT NULL,
      "code" text NOT NULL,
      "pool" text,
      "slot" bigint NOT NULL,
      "message" text NOT NULL,
      "first_seen_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_problem" PRIMARY KEY ("cluster", "event_id", "code"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "indexer"."problem"`);
    await q.query(`DROP INDEX "indexer"."gap_due_idx"`);
    await q.query(`DROP TABLE "indexer"."gap"`);
    await q.query(`DROP TABLE "indexer"."pool"`);
    await q.query(`DROP TABLE "indexer"."program_cursor"`);
    await q.query(`DROP TABLE "indexer"."cluster_cursor"`);
    await q.query(`DROP SCHEMA IF EXISTS "indexer"`);
  }
}
