import type { MigrationInterface, QueryRunner } from 'typeorm';
import { olderBuildViews } from '../projections/midprice/midprice.schema';
import { quoteIdent } from '../sql/identifiers';

/**
 * Midprice v4 stores each last point's sample text (`tail`), which the API's sampled history
 * reads. On a database whose served midprice build is older (a fresh database starts with v1; an
 * upgrade from the previous release serves v3 while v4 replays beside it), the last-point views
 * (`read.midprice_minute`, `…_five_minute`, `…_hourly`) gain the column derived from the served
 * build's rows, so the API's one query reads the same views whichever version is served. The
 * column is appended (CREATE OR REPLACE keeps the others as they are); v4's switch replaces the
 * views with views of its tables.
 */
export class MidpriceSampleTail1764500000000 implements MigrationInterface {
  name = 'MidpriceSampleTail1764500000000';

  async up(q: QueryRunner): Promise<void> {
    const served: Array<{ schema_name: string; version: number }> = await q.query(
      `SELECT schema_name, version FROM "projector"."projection_builds" WHERE projection = 'midprice' AND status = 'active' AND version IN (1, 2, 3)`,
    );
    if (!served[0]) return;
    // The views as v4's release served older builds (the tail derived, no sample JSON).
    for (const view of olderBuildViews(served[0].version as 1 | 2 | 3, false).filter((v) => v.name !== 'midprice_points')) {
      await q.query(`CREATE OR REPLACE VIEW "read"."${view.name}" AS ${view.select(quoteIdent(served[0].schema_name))}`);
    }
  }

  async down(): Promise<void> {
    // The appended column stays: the previous release names the columns it reads, and its next
    // switch recreates the views as it defines them.
  }
}
