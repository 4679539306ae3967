import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { Pool } from 'pg';
import { withClient, withDatabase } from '@hadron/platform/database/admin';
import { runMigrations } from '@hadron/platform/database/migrate';
import { createPool } from '@hadron/platform/database/pool';
import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { benchKeepsDatabase, benchPostgres } from '@hadron/platform/testing/bench-postgres';
import { ALL_PROJECTIONS, BuildRegistry, projectorMigrations } from '../../projector/src';
import { DEVNET_POOLS, generateDataset, HUGE_POOL, MAINNET_POOLS, type DatasetStats } from './bench-dataset';

export const ROOT = resolve(__dirname, '../../..');

/**
 * The generated dataset (bench-dataset.ts) in a fresh database of DATABASE_URL's server or an
 * embedded Postgres. BENCH_DB=<name> reuses one kept by an earlier BENCH_KEEP=1 run (skips the
 * ~80 s generation). BENCH_API_HUGE=1 adds the 10⁷-row HUGE pool (minutes more). `done()` drops it
 * (unless kept) and stops the embedded server (left running when kept, to look into it).
 */
export async function prepareDataset(
  log: (m: string) => void,
): Promise<{ url: string; stats: DatasetStats & { mainnet: number; devnet: number; huge: boolean }; done: () => Promise<void> }> {
  const { adminUrl, stop } = await benchPostgres(ROOT);
  const reuse = process.env.BENCH_DB;
  const keep = benchKeepsDatabase() || !!reuse;
  const dbName = reuse ?? `bench_api_${Date.now().toString(36)}`;
  const url = withDatabase(adminUrl, dbName);
  const done = async () => {
    const kept = await stop({ name: dbName, keep }).catch(() => undefined);
    if (kept) log(`${kept}; rerun with BENCH_DB=${dbName}`);
  };
  try {
    let stats: DatasetStats;
    let huge = process.env.BENCH_API_HUGE === '1';
    // Activating the swaps build runs its finish (runApart: a reader and four writers, the finish's
    // own connection, a batch waiting on it): 7 at once. With 2, the bench stopped before measuring.
    const pool = createPool(url, { max: 8, application: 'api-bench-setup' });
    const now = Math.floor(Date.now() / 1000);
    const poolsDef = ALL_PROJECTIONS.find((d) => d.name === 'pools')!;
    if (reuse) {
      const [r] = (
        await pool.query<{ swaps: string; points: string; pools: string }>(
          `SELECT (SELECT count(*) FROM read.swaps) AS swaps, (SELECT count(*) FROM read.midprice_points) AS points, (SELECT count(*) FROM read.pools) AS pools`,
        )
      ).rows;
      stats = { pools: Number(r.pools), swaps: Number(r.swaps), points: Number(r.points), seconds: 0 };
      // Without HUGE, pool 3 is an ordinary pool of 200 points: reading past that says which (not all 10⁷).
      const [h] = (
        await pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM (SELECT 1 FROM read.midprice_points WHERE cluster = 'mainnet-beta' AND pool = $1 LIMIT 1000) p`,
          [HUGE_POOL],
        )
      ).rows;
      huge = Number(h.n) === 1000;
    } else {
      await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
      await runMigrations(url, [eventLogMigrations, projectorMigrations]);
      // Builds of the code's versions, as the projector activates them on a fresh install (the
      // migration's initial builds are of the first versions).
      const registry = new BuildRegistry(pool);
      for (const def of ALL_PROJECTIONS) await registry.activate(def, await registry.create(def), { nowSec: now });
      log(`generating dataset in ${dbName} …`);
      stats = await generateDataset(pool, await activeSchemas(pool), now, log, huge);
    }
    await poolsDef.refresh!(pool as never, (await activeSchemas(pool)).pools, now); // the projector's own 24 h stats refresher
    await settle(pool, log);
    log(
      `dataset: ${stats.pools} pools, ${stats.swaps.toLocaleString('en')} swaps, ${stats.points.toLocaleString('en')} midprice points${stats.seconds ? ` generated in ${stats.seconds.toFixed(0)} s` : ` (reused ${dbName})`}`,
    );
    await pool.end();
    return { url, stats: { ...stats, mainnet: MAINNET_POOLS, devnet: DEVNET_POOLS, huge }, done };
  } catch (e) {
    await done();
    throw e;
  }
}

/**
 * The dataset's writes flushed before anything is measured (CHECKPOINT). Generating it writes
 * gigabytes (WAL and tables); the checkpoint that starts meanwhile spreads its writes over the next
 * minutes (checkpoint_completion_target): on 2026-12-02 one started during generation and
 * completed four minutes later, through the first half of the cases. An immediate checkpoint
 * finishes it at full speed first (2.9 s in the next run). Whether the first cases' figures moved
 * with it could not be told on that day's machine, whose figures moved more from run to run. A
 * role that may not run it (neither superuser nor pg_checkpoint) is told so, and the bench goes on.
 */
async function settle(pool: Pool, log: (m: string) => void): Promise<void> {
  const t = Date.now();
  try {
    await pool.query('CHECKPOINT');
    log(`settled: the dataset's writes flushed (CHECKPOINT) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  } catch (e) {
    log(`not settled: CHECKPOINT refused (${(e as Error).message}); the first cases may run while the server writes the dataset back`);
  }
}

async function activeSchemas(pool: Pool): Promise<{ pools: string; swaps: string; midprice: string }> {
  const { rows } = await pool.query<{ projection: string; schema_name: string }>(
    `SELECT projection, schema_name FROM projector.projection_builds WHERE status = 'active'`,
  );
  return Object.fromEntries(rows.map((r) => [r.projection, `"${r.schema_name}"`])) as { pools: string; swaps: string; midprice: string };
}

/** A server under test in its own process: where it listens, and its pid (for its CPU time and RSS). */
export interface Server {
  url: string;
  pid: number;
}

/** Forks `script` with `args` (a bench's own server roles); resolves once the child reports its port over IPC. */
export function child(script: string, args: string[], children: ChildProcess[]): Promise<Server> {
  const c = fork(script, args, { execArgv: ['-r', resolve(ROOT, 'scripts/register-ts.js')], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(c);
  return new Promise((res, rej) => {
    c.once('message', (m: { port: number }) => res({ url: `http://127.0.0.1:${m.port}`, pid: c.pid! }));
    c.once('exit', (code) => rej(new Error(`bench server ${args[0]} exited with ${code}`)));
  });
}
