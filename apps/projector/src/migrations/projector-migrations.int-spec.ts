import { eventLogMigrations, runMigrations } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { DataSource } from 'typeorm';
import { createServedBuild } from '../../test-support/served-build';
import { LAST_POINT_TABLES, midpriceSchemaV3, midpriceSchemaV4, midpriceSchemaV5 } from '../projections/midprice/midprice.schema';
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

  /**
   * A database as the release before `migrations` left it, its midprice served by a build of
   * `shape` (the views as that release's switch left them), one row in each last-point table;
   * then this release's migrations; returns each last-point view's row.
   */
  async function migratedFrom(shape: typeof midpriceSchemaV3, releasedMigrations: number): Promise<Array<Record<string, unknown>>> {
    const before = await createTestDatabase([
      eventLogMigrations,
      { ...projectorMigrations, migrations: projectorMigrations.migrations.slice(0, releasedMigrations) },
    ]);
    try {
      const schema = `proj_midprice_v${shape.version}_served`;
      await createServedBuild(before.pool, shape, schema);
      await before.pool.query(`UPDATE projector.projection_builds SET status = 'retired' WHERE projection = 'midprice'`);
      await before.pool.query(
        `INSERT INTO projector.projection_builds (projection, build_id, version, schema_name, consumer_group, status, activated_at)
         VALUES ('midprice', 'bvx', $2, $1, 'midprice.vx.bvx', 'active', now())`,
        [schema, shape.version],
      );
      for (const { table, bucketCol } of LAST_POINT_TABLES) {
        await before.pool.query(
          `INSERT INTO ${schema}.${table} (cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32, point_id)
           VALUES ('mainnet-beta', 'P', 3600, 3601, 77, 0, 0, 0, 'sig"1', 123456789012345678, 3, 'e1')`,
        );
      }
      await runMigrations(before.url, [projectorMigrations]);
      const rows: Array<Record<string, unknown>> = [];
      for (const { table } of LAST_POINT_TABLES) rows.push(...(await before.pool.query(`SELECT * FROM read.${table}`)).rows);
      return rows;
    } finally {
      await before.drop();
    }
  }

  const TAIL = '77 123456789012345678 3 "sig\\"1"';
  const SAMPLE_JSON = `,"slot":77,"midprice":${123456789012345678 / 2 ** 32},"base_spread_factor":${3 / 2 ** 32},"signature":"sig\\"1"}`;

  /** v6's hour items of the one row: its 5 minutes' and half hour's sample, each timestamped 3600. */
  const ITEMS = `{"timestamp":3600${SAMPLE_JSON}`;

  it.each([
    ["v3 (three releases back): v4's tail, v5's sample JSON and v6's hour items", midpriceSchemaV3, 3],
    ["v4 (two releases back): v5's sample JSON and v6's hour items", midpriceSchemaV4, 2],
    ["v5 (the previous release): v6's hour items", midpriceSchemaV5, 1],
  ] as const)("on a database served by midprice %s, derived from the build's rows, are appended to the last-point views", async (_, shape, releasesBack) => {
    const rows = await migratedFrom(shape, projectorMigrations.migrations.length - releasesBack);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toEqual(expect.objectContaining({ slot: '77', point_id: 'e1', tail: TAIL, sample_json: SAMPLE_JSON }));
      // Appended: the columns the previous releases read keep their place.
      const hourly = 'hour_start' in row;
      expect(Object.keys(row).slice(hourly ? -5 : -3)).toEqual([
        'point_id',
        'tail',
        'sample_json',
        ...(hourly ? ['five_minute_items', 'thirty_minute_items'] : []),
      ]);
      if (hourly) expect(row).toEqual(expect.objectContaining({ five_minute_items: ITEMS, thirty_minute_items: ITEMS }));
    }
  });
});
