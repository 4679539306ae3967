import { resolve } from 'node:path';
import { startEmbeddedPostgres } from '../database/embedded-postgres';
import { createLogger } from '../logging/logger';

/**
 * The server a benchmark creates its throwaway database in: DATABASE_URL (an admin URL) when set,
 * otherwise an embedded Postgres under <root>/.data/bench-postgres on BENCH_PG_PORT (default 54349).
 */
export async function benchPostgres(root: string): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { adminUrl: process.env.DATABASE_URL, stop: async () => undefined };
  const pg = await startEmbeddedPostgres({
    dataDir: resolve(root, '.data/bench-postgres'),
    port: Number(process.env.BENCH_PG_PORT ?? 54349),
    database: 'postgres',
    log: createLogger('bench-postgres', 'warn'),
  });
  return { adminUrl: pg.url, stop: async () => void (await pg.release()) };
}

/** Whether a benchmark keeps its throwaway database when it ends (BENCH_KEEP=1), to look into it afterwards. */
export const benchKeepsDatabase = (): boolean => process.env.BENCH_KEEP === '1';
