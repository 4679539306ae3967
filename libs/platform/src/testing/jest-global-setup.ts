import { resolve } from 'node:path';
import { startEmbeddedPostgres } from '../database/embedded-postgres';
import { createLogger } from '../logging/logger';

/**
 * Integration and e2e tests use a real Postgres: `DATABASE_URL` when set (CI, a developer's own
 * server), otherwise an embedded Postgres under .data/test-postgres started here once per run.
 * Each test file then creates its own throwaway database (test-database.ts).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_ADMIN_DATABASE_URL) return; // another project of this run already set it up
  if (process.env.DATABASE_URL) {
    process.env.TEST_ADMIN_DATABASE_URL = process.env.DATABASE_URL;
    return;
  }
  const pg = await startEmbeddedPostgres({
    dataDir: resolve(__dirname, '../../../../.data/test-postgres'),
    port: Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54339),
    database: 'postgres',
    log: createLogger('test-postgres', 'warn'),
  });
  process.env.TEST_ADMIN_DATABASE_URL = pg.url;
  (globalThis as { __embeddedPg?: typeof pg }).__embeddedPg = pg;
}
