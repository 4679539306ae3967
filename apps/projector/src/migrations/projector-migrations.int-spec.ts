import { eventLogMigrations, runMigrations } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { DataSource } from 'typeorm';
import { createServedBuild } from '../../test-support/served-build';
import { LAST_POINT_TABLES, midpriceSchemaV3 } from '../projections/midprice/midprice.schema';
import { projectorMigrations } from '.';

describe('projector migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
  });
  afterAll(() => db.drop());

  const schemas = async () =>
    (await db.pool.query(`SELECT nspname FROM pg_namespace WHERE nspname IN ('read', 'projector') OR nspname LIKE 'proj\\_%' ORDER BY nspname`)).rows.map(
      (r) => r.nspname,
    );

  it('reverse cleanly (builds, views, registry) and apply again', async () => {
    await db.pool.query(`CREATE SCHEMA proj_swaps_v1_bextra`);
    await db.pool.query(
      `INSERT INTO projector.projection_builds (projection, build_id, version, schema_name, consumer_group, status) VALUES ('swaps', 'bextra', 1, 'proj_swaps_v1_bextra', 'swaps.v1.bextra', 'building')`,
    );
    const ds = new DataSource({
      type: 'postgres',
      url: db.url,
      migrations: projectorMigrations.migrations,
      migrationsTableName: projectorMigrations.tableName,
      logging: false,
    });
    await ds.initialize();
    try {
      // Every projector migration, newest first.
      for (let i = 0; i < projectorMigrations.migrations.length; i++) await ds.undoLastMigration({ transaction: 'each' });
    } finally {
      await ds.destroy();
    }
    expect(await schemas()).toEqual([]);
    await runMigrations(db.url, [projectorMigrations]);
    expect(await schemas()).toEqual(['proj_midprice_v1_initial', 'proj_pools_v1_initial', 'proj_swaps_v1_initial', 'projector', 'read']);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM read.pools')).rows[0].n).toBe(0);
  });

  it("on a database served by midprice v3 (the previous release), the last-point views gain v4's tail, derived from v3's rows", async () => {
    const before = await createTestDatabase([eventLogMigrations, { ...projectorMigrations, migrations: projectorMigrations.migrations.slice(0, -1) }]);
    try {
      const schema = 'proj_midprice_v3_served';
      await createServedBuild(before.pool, midpriceSchemaV3, schema); // the views as the previous release's switch left them
      await before.pool.query(`UPDATE projector.projection_builds SET status = 'retired' WHERE projection = 'midprice'`);
      await before.pool.query(
        `INSERT INTO projector.projection_builds (projection, build_id, version, schema_name, consumer_group, status, activated_at)
         VALUES ('midprice', 'bv3', 3, $1, 'midprice.v3.bv3', 'active', now())`,
        [schema],
      );
      for (const { table, bucketCol } of LAST_POINT_TABLES) {
        await before.pool.query(
          `INSERT INTO ${schema}.${table} (cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32, point_id)
           VALUES ('mainnet-beta', 'P', 3600, 3601, 77, 0, 0, 0, 'sig"1', 123456789012345678, NULL, 'e1')`,
        );
      }
      await runMigrations(before.url, [projectorMigrations]);
      for (const { table } of LAST_POINT_TABLES) {
        const { rows } = await before.pool.query(`SELECT * FROM read.${table}`);
        expect(rows).toEqual([expect.objectContaining({ slot: '77', point_id: 'e1', tail: '77 123456789012345678  "sig\\"1"' })]);
        // Appended: the columns the previous release reads keep their place.
        expect(Object.keys(rows[0]).slice(-2)).toEqual(['point_id', 'tail']);
      }
    } finally {
      await before.drop();
    }
  });
});
