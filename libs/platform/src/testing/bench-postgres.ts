import { relative, resolve } from 'node:path';
import { z } from 'zod';
import { parseEnv, storageEnvShape } from '../config/env';
import { withClient } from '../database/admin';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../database/embedded-postgres';
import { createLogger } from '../logging/logger';

const benchDataDir = (root: string) => resolve(root, '.data/bench-postgres');

/**
 * The benchmarks' embedded Postgres under <root>/.data/bench-postgres on `port`, its
 * `shared_buffers` from EMBEDDED_PG_SHARED_BUFFERS as the processes read it (unset: the embedded default).
 */
export function startBenchEmbeddedPostgres(root: string, port = 54349): Promise<EmbeddedPostgres> {
  const { EMBEDDED_PG_SHARED_BUFFERS } = parseEnv(z.object({ EMBEDDED_PG_SHARED_BUFFERS: storageEnvShape.EMBEDDED_PG_SHARED_BUFFERS }));
  return startEmbeddedPostgres({
    dataDir: benchDataDir(root),
    port,
    database: 'postgres',
    sharedBuffers: EMBEDDED_PG_SHARED_BUFFERS,
    log: createLogger('bench-postgres', 'warn'),
  });
}

/** A benchmark's Postgres server, and how the benchmark leaves it. */
export interface BenchPostgres {
  /** An admin URL (it may carry a password: hand it to a driver, never to a log line). */
  adminUrl: string;
  /**
   * Ends the benchmark's use of the server. `database`: the run's throwaway database, dropped
   * unless `keep` (BENCH_KEEP=1, see benchKeepsDatabase). For a kept one, returns the line that
   * says where it is (no secret in it): an embedded server is then left running, so that the
   * line's psql command works; otherwise it is stopped (the server is released even if the drop fails).
   */
  stop(database?: { name: string; keep: boolean }): Promise<string | undefined>;
}

/**
 * The server a benchmark creates its throwaway database in: DATABASE_URL (an admin URL) when set,
 * otherwise an embedded Postgres under <root>/.data/bench-postgres on BENCH_PG_PORT (default 54349).
 */
export async function benchPostgres(root: string): Promise<BenchPostgres> {
  const drop = (adminUrl: string, name: string) => withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  if (process.env.DATABASE_URL) {
    const adminUrl = process.env.DATABASE_URL;
    return {
      adminUrl,
      stop: async (database) => {
        if (!database) return undefined;
        if (!database.keep) return void (await drop(adminUrl, database.name));
        return `kept database ${database.name} on DATABASE_URL's server`;
      },
    };
  }
  const dataDir = benchDataDir(root);
  const port = Number(process.env.BENCH_PG_PORT ?? 54349);
  const pg = await startBenchEmbeddedPostgres(root, port);
  /** A path as the user typing the printed command sees it: relative to where the bench was started. */
  const shown = (path: string) => relative(process.cwd(), path) || path;
  return {
    adminUrl: pg.url,
    stop: async (database) => {
      if (!database?.keep) {
        try {
          if (database) await drop(pg.url, database.name);
        } finally {
          await pg.release();
        }
        return undefined;
      }
      await pg.leave();
      // Where it listens: a server found running was reused on its own port, which may not be `port`.
      const listens = new URL(pg.url).port;
      return (
        `kept database ${database.name} on the embedded server under ${shown(dataDir)}, left running to look into it: ` +
        `PGPASSWORD="$(cat ${shown(pg.passwordFile)})" psql -h 127.0.0.1 -p ${listens} -U postgres ${database.name} ` +
        `(the next benchmark on that server that keeps nothing stops it)`
      );
    },
  };
}

/** Whether a benchmark keeps its throwaway database when it ends (BENCH_KEEP=1), to look into it afterwards. */
export const benchKeepsDatabase = (): boolean => process.env.BENCH_KEEP === '1';
