import { eventLogMigrations, runMigrations } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { DataSource } from 'typeorm';
import { createServedBuild } from '../../test-support/served-build';
import { LAST_POINT_TABLES, midpriceSchemaV3, midpriceSchemaV4, midpriceSchemaV5, midpriceSchemaV6 } from '../projections/midprice/midprice.schema';
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
   * `shape` (the views as that release's switch left them), one row in each last-point table and
   * one point; then this release's migrations; returns each last-point view's row, and the point's.
   */
  async function migratedFrom(
    shape: typeof midpriceSchemaV3,
    releasedMigrations: number,
  ): Promise<{ rows: Array<Record<string, unknown>>; point: Record<string, unknown> }> {
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
      await before.pool.query(
        `INSERT INTO ${schema}.midprice_points (cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, instruction, sequence, midprice_q32, spread_factor_q32)
         VALUES ('mainnet-beta', 'P', 3601, 'e1', 3601, 77, 0, 0, 0, 'sig"1', 'UpdateMidprice', 1, 123456789012345678, 3)`,
      );
      await runMigrations(before.url, [projectorMigrations]);
      const rows: Array<Record<string, unknown>> = [];
      for (const { table } of LAST_POINT_TABLES) rows.push(...(await before.pool.query(`SELECT * FROM read.${table}`)).rows);
      const [point] = (await before.pool.query('SELECT * FROM read.midprice_points')).rows;
      return { rows, point };
    } finally {
      await before.drop();
    }
  }

  const TAIL = '77 123456789012345678 3 "sig\\"1"';
  const SAMPLE_JSON = `,"slot":77,"midprice":${123456789012345678 / 2 ** 32},"base_spread_factor":${3 / 2 ** 32},"signature":"sig\\"1"}`;

  /** v6's hour items of the one row: its 5 minutes' and half hour's sample, each timestamped 3600. */
  const ITEMS = `{"timestamp":3600${SAMPLE_JSON}`;

  it.each([
    ["v3 (four releases back): v4's tail, v5's sample JSON, v6's hour items and v7's point JSON", midpriceSchemaV3, 4],
    ["v4 (three releases back): v5's sample JSON, v6's hour items and v7's point JSON", midpriceSchemaV4, 3],
    ["v5 (two releases back): v6's hour items and v7's point JSON", midpriceSchemaV5, 2],
    ["v6 (the previous release): v7's point JSON", midpriceSchemaV6, 1],
  ] as const)("on a database served by midprice %s, derived from the build's rows, are appended to the views", async (_, shape, releasesBack) => {
    const { rows, point } = await migratedFrom(shape, projectorMigrations.migrations.length - releasesBack);
    // The point's sample JSON, appended after the columns the previous releases read.
    expect(point).toEqual(expect.objectContaining({ slot: '77', id: 'e1', sample_json: SAMPLE_JSON }));
    expect(Object.keys(point).slice(-2)).toEqual(['base_spread_factor', 'sample_json']);
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
      // v6 stores its hour items (this row was written without them); older builds derive them from their five-minute rows.
      const items = shape.version === 6 ? null : ITEMS;
      if (hourly) expect(row).toEqual(expect.objectContaining({ five_minute_items: items, thirty_minute_items: items }));
    }
  });
});
