import { eventLogMigrations, runMigrations } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { DataSource } from 'typeorm';
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
});
