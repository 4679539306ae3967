import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createBuildTables, pointReadViews, type SqlExec } from '../builds/build-objects';
import type { ProjectionSchemaVersion } from '../projection';
import { midpriceSchemaV1 } from '../projections/midprice/midprice.schema';
import { poolsSchemaV1 } from '../projections/pools/pools.schema';
import { swapsSchemaV1 } from '../projections/swaps/swaps.schema';
import { quoteIdent } from '../sql/identifiers';

/**
 * The projector's registry of builds, the `read` schema, and an initial (empty) v1 build of every
 * projection with its `read.*` views, so the API can query from the first boot. The v1 shapes are
 * frozen objects: a later version adds a new shape and is reached by a replay, not by editing this.
 */
const INITIAL: ReadonlyArray<[string, ProjectionSchemaVersion]> = [
  ['pools', poolsSchemaV1],
  ['swaps', swapsSchemaV1],
  ['midprice', midpriceSchemaV1],
];

export class Projector1763900000000 implements MigrationInterface {
  name = 'Projector1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA IF NOT EXISTS "projector"`);
    await q.query(`CREATE TABLE "projector"."projection_builds" (
      "projection" text NOT NULL,
      "build_id" text NOT NULL,
      "version" integer NOT NULL,
      "schema_name" text NOT NULL,
      "consumer_group" text NOT NULL,
      "status" text NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "activated_at" TIMESTAMP WITH TIME ZONE,
      "retired_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "PK_projection_builds" PRIMARY KEY ("projection", "build_id"))`);
    await q.query(`CREATE UNIQUE INDEX "projection_builds_one_active" ON "projector"."projection_builds" ("projection") WHERE status = 'active'`);
    await q.query(`CREATE UNIQUE INDEX "projection_builds_schema_name_key" ON "projector"."projection_builds" ("schema_name")`);
    await q.query(`CREATE UNIQUE INDEX "projection_builds_consumer_group_key" ON "projector"."projection_builds" ("consumer_group")`);
    await q.query(`CREATE SCHEMA IF NOT EXISTS "read"`);
    // A QueryRunner answers with the rows themselves; the build helpers expect pg's `{ rows }`.
    const db: SqlExec = { query: async (sql, params) => ({ rows: await q.query(sql, params) }) };
    for (const [projection, shape] of INITIAL) {
      const schemaName = `proj_${projection}_v${shape.version}_initial`;
      await createBuildTables(db, shape, schemaName);
      await q.query(
        `INSERT INTO "projector"."projection_builds" (projection, build_id, version, schema_name, consumer_group, status, activated_at)
         VALUES ($1, 'initial', $2, $3, $4, 'active', now())`,
        [projection, shape.version, schemaName, `${projection}.v${shape.version}.initial`],
      );
      await pointReadViews(db, shape, schemaName);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP SCHEMA IF EXISTS "read" CASCADE`);
    const builds: Array<{ schema_name: string }> = await q.query(`SELECT schema_name FROM "projector"."projection_builds"`);
    for (const b of builds) await q.query(`DROP SCHEMA IF EXISTS ${quoteIdent(b.schema_name)} CASCADE`);
    await q.query(`DROP TABLE "projector"."projection_builds"`);
    await q.query(`DROP SCHEMA IF EXISTS "projector"`);
  }
}
