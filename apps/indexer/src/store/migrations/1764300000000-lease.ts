import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cluster lease: the fencing epoch of the cluster's active indexer. Bumped by every process that
 * takes the cluster lock; every append checks it (see IndexerStore.fenced).
 */
export class IndexerLease1764300000000 implements MigrationInterface {
  name = 'IndexerLease1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "indexer"."lease" (
      "cluster" text NOT NULL,
      "epoch" bigint NOT NULL,
      "holder" text NOT NULL,
      "acquired_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_lease" PRIMARY KEY ("cluster"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "indexer"."lease"`);
  }
}
