import type { QueryRunner } from 'typeorm';
import type { ReadView } from '../projection';
import { quoteIdent } from '../sql/identifiers';

/**
 * For the migrations that add a column to the midprice views: when the served midprice build is
 * of one of `versions`, its last-point views (`read.midprice_minute`, `…_five_minute`,
 * `…_hourly`), and with `points` its `read.midprice_points`, are replaced by `views(version)` of
 * its schema, with CREATE OR REPLACE (a column can only be appended; the others keep their
 * place). Nothing to do on any other version.
 */
export async function replaceServedMidpriceViews(
  q: QueryRunner,
  versions: readonly number[],
  views: (version: number) => ReadView[],
  { points = false }: { points?: boolean } = {},
): Promise<void> {
  const served: Array<{ schema_name: string; version: number }> = await q.query(
    `SELECT schema_name, version FROM "projector"."projection_builds" WHERE projection = 'midprice' AND status = 'active' AND version = ANY($1::int[])`,
    [versions],
  );
  if (!served[0]) return;
  for (const view of views(served[0].version).filter((v) => points || v.name !== 'midprice_points')) {
    await q.query(`CREATE OR REPLACE VIEW "read"."${view.name}" AS ${view.select(quoteIdent(served[0].schema_name))}`);
  }
}
