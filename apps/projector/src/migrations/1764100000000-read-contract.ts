import type { MigrationInterface, QueryRunner } from 'typeorm';
import { feeRecipientMinuteFromSwaps } from '../projections/swaps/swaps.schema';
import { quoteIdent } from '../sql/identifiers';

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
