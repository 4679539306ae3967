import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Transactions of a pool held back (its mint not readable yet): replayed, in chain order, once the pool is announced. */
export class IndexerHeldTx1764200000000 implements MigrationInterface {
  name = 'IndexerHeldTx1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "indexer"."held_tx" (
      "cluster" text NOT NULL,
      "pool" text NOT NULL,
      "signature" text NOT NULL,
      "slot" bigint NOT NULL,
      "position" integer NOT NULL,
      "tx_index" integer,
      "block_time" bigint,
      "held_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_held_tx" PRIMARY KEY ("cluster", "pool", "signature"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "indexer"."held_tx"`);
  }
}
