import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `finished_at` on the build registry: when a replay's deferred tables were written
 * (ProjectionDefinition.finishBuild; swaps v3 defers its running totals). While it is null a
 * `building` build's batches go to the projection's bulk handler; from then on, to its live one.
 */
export class BuildFinished1764400000000 implements MigrationInterface {
  name = 'BuildFinished1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projector"."projection_builds" ADD COLUMN "finished_at" timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "projector"."projection_builds" DROP COLUMN "finished_at"`);
  }
}
