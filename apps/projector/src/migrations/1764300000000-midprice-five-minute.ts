import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quoteIdent } from '../sql/identifiers';

/** The derived view as this migration was released (frozen; the projector's own definition may change). */
const fiveMinuteFromMinutes = {
  name: 'midprice_five_minute',
  select: (
    s: string,
  ) => `SELECT DISTINCT ON (cluster, pool, (minute_start - (((minute_start) % 300) + 300) % 300)) cluster, pool, (minute_start - (((minute_start) % 300) + 300) % 300) AS five_minute_start,
    ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32,
    trim_scale(midprice_q32 / 4294967296::numeric) AS midprice, trim_scale(spread_factor_q32 / 4294967296::numeric) AS base_spread_factor, point_id
    FROM ${s}.midprice_minute ORDER BY cluster, pool, 3, slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, point_id DESC`,
};

/**
 * Midprice v3 keeps the last point of every 5 minutes (`read.midprice_five_minute`), which the
 * API's sampled history reads for 5-minute runs. On a database whose served midprice build is v1
 * or v2 (a fresh database starts with v1; an upgrade from the previous release serves v2 while v3
 * replays beside it) that view is created derived from the served build's minutes, so the API's
 * one sampled query reads the same views whichever version is served. v3's switch replaces it
 * with a view of its table.
 */
export class MidpriceFiveMinute1764300000000 implements MigrationInterface {
  name = 'MidpriceFiveMinute1764300000000';

  async up(q: QueryRunner): Promise<void> {
    const served: Array<{ schema_name: string }> = await q.query(
      `SELECT schema_name FROM "projector"."projection_builds" WHERE projection = 'midprice' AND status = 'active' AND version IN (1, 2)`,
    );
    if (!served[0]) return;
    const [existing]: Array<{ v: string | null }> = await q.query(`SELECT to_regclass($1)::text AS v`, [`read.${fiveMinuteFromMinutes.name}`]);
    if (existing.v === null)
      await q.query(`CREATE VIEW "read"."${fiveMinuteFromMinutes.name}" AS ${fiveMinuteFromMinutes.select(quoteIdent(served[0].schema_name))}`);
  }

  async down(q: QueryRunner): Promise<void> {
    // Only the derived view this migration may have created (a v3 build's view stays).
    const served: Array<{ n: number }> = await q.query(
      `SELECT count(*)::int AS n FROM "projector"."projection_builds" WHERE projection = 'midprice' AND status = 'active' AND version IN (1, 2)`,
    );
    if (served[0].n > 0) await q.query(`DROP VIEW IF EXISTS "read"."${fiveMinuteFromMinutes.name}"`);
  }
}
