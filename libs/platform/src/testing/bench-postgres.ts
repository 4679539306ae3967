import { relative, resolve } from 'node:path';
import { startEmbeddedPostgres } from '../database/embedded-postgres';
import { createLogger } from '../logging/logger';

/** A benchmark's Postgres server, and how the benchmark leaves it. */
export interface BenchPostgres {
  /** An admin URL (it may carry a password: hand it to a driver, never to a log line). */
  adminUrl: string;
  /**
   * Ends the benchmark's use of the server. `kept`: the database the run kept (BENCH_KEEP=1), if
   * any. Returns the line that says where it is (no secret in it): an embedded server is then
   * left running, so that the line's psql command works; otherwise it is stopped.
   */
  stop(kept?: string): Promise<string | undefined>;
}

/**
 * The server a benchmark creates its throwaway database in: DATABASE_URL (an admin URL) when set,
 * otherwise an embedded Postgres under <root>/.data/bench-postgres on BENCH_PG_PORT (default 54349).
 */
export async function benchPostgres(root: string): Promise<BenchPostgres> {
  if (process.env.DATABASE_URL) {
    return { adminUrl: process.env.DATABASE_URL, stop: async (kept) => (kept ? `kept database ${kept} on DATABASE_URL's server` : undefined) };
  }
  const dataDir = resolve(root, '.data/bench-postgres');
  const port = Number(process.env.BENCH_PG_PORT ?? 54349);
  const pg = await startEmbeddedPostgres({ dataDir, port, database: 'postgres', log: createLogger('bench-postgres', 'warn') });
  return {
    adminUrl: pg.url,
    stop: async (kept) => {
      if (!kept) return void (await pg.release());
      await pg.leave();
      // Where it listens: a server found running was reused on its own port, which may not be `port`.
      const listens = new URL(pg.url).port;
      const passwordFile = relative(process.cwd(), pg.passwordFile) || pg.passwordFile;
      return (
        `kept database ${kept} on the embedded server under ${relative(process.cwd(), dataDir) || dataDir}, left running to look into it: ` +
        `PGPASSWORD="$(cat ${passwordFile})" psql -h 127.0.0.1 -p ${listens} -U postgres ${kept} ` +
        `(the next benchmark on that server that keeps nothing stops it)`
      );
    },
  };
}

/** Whether a benchmark keeps its throwaway database when it ends (BENCH_KEEP=1), to look into it afterwards. */
export const benchKeepsDatabase = (): boolean => process.env.BENCH_KEEP === '1';
