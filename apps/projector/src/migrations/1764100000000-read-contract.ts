import type { MigrationInterface, QueryRunner } from 'typeorm';
import { quoteIdent } from '../sql/identifiers';

/** The derived view as this migration was released (frozen; the projector's own definition may change). */
const feeRecipientMinuteFromSwaps = {
  name: 'fee_recipient_minute',
  select: (s: string) => `SELECT cluster, pool, minute_start, recipient, sum(fee_x_raw_x1e6) AS fee_x_raw_x1e6, sum(fee_y_raw_x1e6) AS fee_y_raw_x1e6,
        sum(fee_value_q32_x1e6) AS fee_value_q32_x1e6, count(*)::bigint AS swap_count, (max(pos))[5]::integer AS last_ppm, (max(pos))[1] AS last_slot,
        (max(pos))[2]::integer AS last_tx_index, (max(pos))[3]::integer AS last_ix_index, (max(pos))[4]::integer AS last_inner_index
      FROM (SELECT s.cluster, s.pool, s.ts - s.ts % 60 AS minute_start, r.recipient, s.fee_x_raw * r.ppm AS fee_x_raw_x1e6, s.fee_y_raw * r.ppm AS fee_y_raw_x1e6,
                   s.protocol_fee_q32 * r.ppm AS fee_value_q32_x1e6, ARRAY[s.slot, s.tx_index, s.ix_index, s.inner_index, r.ppm]::int8[] AS pos
              FROM ${s}.swaps s CROSS JOIN LATERAL unnest(s.split_recipients, s.split_ppm) AS r(recipient, ppm)
             WHERE s.split_recipients IS NOT NULL AND (s.fee_x_raw > 0 OR s.fee_y_raw > 0)) x
     GROUP BY cluster, pool, minute_start, recipient`,
};

/**
 * What the projector publishes to readers besides the projections' own views:
 * - `read.projection_status`: per projection, the served (active) build, its version, how far it
 *   has applied the log (`position`: the sum of its consumers' next offsets, over partitions) and
 *   when it last committed a batch (`applied_at`). Readers (the API's pool list) watch it to know
 *   that projections advanced, instead of reading the event log's checkpoint table.
 * - on a database whose served swaps build is still the initial v1 (an upgrade from a release
 *   before swaps v2, replaying v2 beside it): `read.fee_recipient_minute`, derived from v1's swaps,
 *   so readers query the same views whichever version is served (v2's switch replaces it).
 */

export class ReadContract1764100000000 implements MigrationInterface {
  name = 'ReadContract1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE VIEW "read"."projection_status" AS
      SELECT b.projection, b.version, b.build_id, coalesce(sum(c.next_offset), 0)::bigint AS position, max(c.updated_at) AS applied_at
        FROM "projector"."projection_builds" b
        LEFT JOIN "event_log_checkpoint" c ON c.group_id = b.consumer_group
       WHERE b.status = 'active'
       GROUP BY b.projection, b.version, b.build_id`);
    const served: Array<{ schema_name: string }> = await q.query(
      `SELECT schema_name FROM "projector"."projection_builds" WHERE projection = 'swaps' AND status = 'active' AND version = 1`,
    );
    const [missing]: Array<{ v: string | null }> = await q.query(`SELECT to_regclass('read.fee_recipient_minute')::text AS v`);
    if (served[0] && missing.v === null) {
      await q.query(`CREATE VIEW "read"."fee_recipient_minute" AS ${feeRecipientMinuteFromSwaps.select(quoteIdent(served[0].schema_name))}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP VIEW IF EXISTS "read"."projection_status"`);
    // Only the derived view this migration may have created (a v2 build's view stays).
    const served: Array<{ n: number }> = await q.query(
      `SELECT count(*)::int AS n FROM "projector"."projection_builds" WHERE projection = 'swaps' AND status = 'active' AND version = 1`,
    );
    if (served[0].n > 0) await q.query(`DROP VIEW IF EXISTS "read"."fee_recipient_minute"`);
  }
}
