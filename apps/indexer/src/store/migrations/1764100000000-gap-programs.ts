import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Which program(s) listed each gap-ledger transaction: events of those programs' pools built while it is open may miss its effect. */
export class IndexerGapPrograms1764100000000 implements MigrationInterface {
  name = 'IndexerGapPrograms1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "indexer"."gap" ADD "programs" text array NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "indexer"."gap" DROP COLUMN "programs"`);
  }
}
