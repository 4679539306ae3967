import type { MigrationInterface, QueryRunner } from 'typeorm';
import { runningViewsFromSwaps } from '../projections/swaps/swaps.schema';
import { quoteIdent } from '../sql/identifiers';

/**
 * Swaps v3 answers fees from running totals (`read.fee_running_second`, `…_day`,
 * `read.fee_recipient_running_second`, `…_day`, `read.fee_recipients`). On a database whose served
 * swaps build is v1 or v2 (a fresh database starts with v1; an upgrade from the previous release
 * serves v2 while v3 replays beside it), those views are created derived from the served build's
 * swaps, so the API's one fees query reads the same views whichever version is served. v3's switch
 * replaces them with views of its tables.
 */
export class FeeRunningTotals1764200000000 implements MigrationInterface {
  name = 'FeeRunningTotals1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const served: Array<{ schema_name: string }> = await q.query(
      `SELECT schema_name FROM "projector"."projection_builds" WHERE projection = 'swaps' AND status = 'active' AND version IN (1, 2)`,
    );
    if (!served[0]) return;
    for (const view of runningViewsFromSwaps) {
      const [existing]: Array<{ v: string | null }> = await q.query(`SELECT to_regclass($1)::text AS v`, [`read.${view.name}`]);
      if (existing.v === null) await q.query(`CREATE VIEW "read"."${view.name}" AS ${view.select(quoteIdent(served[0].schema_name))}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    // Only the derived views this migration may have created (a v3 build's views stay).
    const served: Array<{ n: number }> = await q.query(
      `SELECT count(*)::int AS n FROM "projector"."projection_builds" WHERE projection = 'swaps' AND status = 'active' AND version IN (1, 2)`,
    );
    if (served[0].n > 0) for (const view of runningViewsFromSwaps) await q.query(`DROP VIEW IF EXISTS "read"."${view.name}"`);
  }
}
