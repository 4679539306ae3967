import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each cluster's chain, by its genesis hash: pinned by the first indexer that indexes the cluster,
 * checked by every indexer that takes it over, so an RPC URL pointing at another chain (the wrong
 * cluster, a reset test validator) never writes into the index (ClusterIndexer.verifyChain).
 */
export class IndexerChain1764400000000 implements MigrationInterface {
  name = 'IndexerChain1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "indexer"."chain" (
      "cluster" text NOT NULL,
      "genesis_hash" text NOT NULL,
      "pinned_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_indexer_chain" PRIMARY KEY ("cluster"))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "indexer"."chain"`);
  }
}
