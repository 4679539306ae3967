import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { withClient, withDatabase } from '../database/admin';
import { runMigrations, type MigrationSet } from '../database/migrate';
import { createPool, endPool } from '../database/pool';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A fresh database on the test server (or on `adminUrl`'s), migrated with `sets`; dropped by `drop()`. */
export async function createTestDatabase(sets: readonly MigrationSet[] = [], adminUrl?: string): Promise<TestDatabase> {
  const admin = adminUrl ?? process.env.TEST_ADMIN_DATABASE_URL;
  if (!admin) throw new Error('TEST_ADMIN_DATABASE_URL is not set: run integration tests through jest (global setup)');
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = withDatabase(admin, name);
  if (sets.length) await runMigrations(url, sets);
  const pool = createPool(url, { max: 10, application: 'test' });
  return {
    url,
    pool,
    drop: async () => {
      await endPool(pool);
      await withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
