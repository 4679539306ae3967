import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createLogger, createPool, endPool, ensureDatabase, startEmbeddedPostgres, withDatabase, type EmbeddedPostgres } from '@hadron/platform';
import { processCpuSeconds } from '@hadron/platform/testing/cpu-time';
import { describeWithKafka } from '@hadron/platform/testing/kafka-test-gate';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import { BuildRegistry } from '../../apps/projector/src/builds/build-registry';
import { ALL_PROJECTIONS } from '../../apps/projector/src/projections';
import { checksumBuild, type TableChecksum } from '../../apps/projector/test-support/read-checksum';
import { simIndexerEnv, waitFor } from '../indexer/indexer-harness';
import { freePort, startEntry, type Started } from './support/app-process';

/**
 * DATABASE FAULTS IN SPLIT MODE: indexer, projector and API as three processes, on the real Kafka
 * broker and on the Postgres log (the embedded default's), each with a Postgres server this test
 * owns, while the simulator keeps producing swaps. Every
 * connection of each process is terminated once (pg_terminate_backend, as an SRE would), then the
 * server is restarted (fast shutdown, start). No process may exit; every readiness endpoint is 503
 * while the server is down and 200 again by itself after; while it is down, each process waits
 * between its tries (no core spun, no flood of log lines); and the read views end up equal to
 * those of a clean run over the same chain (nothing lost, nothing applied twice; see below for the
 * one thing that legitimately differs: when account state was observed).
 */

const HISTORY_END_MS = 1_760_000_000_000;
/** The application_name each deployable's pool uses (see each main.ts). */
const PROCESS_APPLICATIONS = ['hadron-indexer', 'hadron-projector', 'hadron-api'];

/** A 3 s outage's budget per process: a retry loop that skipped its pause used a whole core and logged thousands of lines a second. */
const OUTAGE_SECONDS = 3;
const OUTAGE_MAX_CPU_SECONDS = 1;
const OUTAGE_MAX_LOG_LINES = 60;

describeWithKafka('database faults (split mode, Kafka)', (brokers) => faultScenario(brokers));
describe('database faults (split mode, Postgres log)', () => faultScenario([]));

function faultScenario(brokers: string[]): void {
  let sim: RunningSimulator;
  let dir: string;
  let pg: EmbeddedPostgres;
  const ports = { pg: 0, api: 0, indexerOps: 0, projectorOps: 0, reference: 0 };
  const children: Started['child'][] = [];
  const log = createLogger('db-faults-e2e', 'warn');
  const pgDir = () => join(dir, 'pg');

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 'db-faults-e2e', pools: 3, historySeconds: 60, historyEndTimeMs: HISTORY_END_MS, live: false });
    dir = mkdtempSync(join(tmpdir(), 'hadron-db-faults-'));
    chmodSync(dir, 0o755); // the server's OS user enters it to reach its data directory
    for (const k of Object.keys(ports) as (keyof typeof ports)[]) ports[k] = await freePort();
    pg = await startEmbeddedPostgres({ dataDir: pgDir(), port: ports.pg, log });
  }, 120_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await pg?.stop();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  /** An admin query on a connection of its own (the server may go away under it). */
  async function admin<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const c = new Client({ connectionString: pg.url, application_name: 'db-faults-test' });
    c.on('error', () => undefined);
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  async function status(port: number): Promise<number> {
    try {
      return (await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) })).status;
    } catch {
      return 0; // not answering at all: counted as a failure below
    }
  }

  async function readChecksums(url: string): Promise<Record<string, TableChecksum>> {
    const pool = createPool(url, { max: 2, application: 'db-faults-test' });
    try {
      const registry = new BuildRegistry(pool);
      const out: Record<string, TableChecksum> = {};
      for (const def of ALL_PROJECTIONS) {
        const build = await registry.active(def.name);
        if (build) Object.assign(out, await checksumBuild(pool, def, build.schemaName));
      }
      return out;
    } finally {
      await endPool(pool);
    }
  }

  it('survives terminated connections and a server restart under load: no exit, readiness 503 while down and 200 after by itself, read views equal to a clean run', async () => {
    const env = {
      ...simIndexerEnv(sim, { INDEXER_POLL_MS: '200' }),
      DATABASE_URL: pg.url,
      KAFKA_BROKERS: brokers.join(','), // none: the Postgres log
      KAFKA_TOPIC_PREFIX: `dbfaults-${randomBytes(4).toString('hex')}`,
      HOST: '127.0.0.1',
      PORT: String(ports.api),
      OPS_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      POOL_LIST_REFRESH_MS: '200',
    };
    const procs = {
      indexer: startEntry('apps/indexer/src/main.ts', { ...env, OPS_PORT: String(ports.indexerOps) }, children),
      projector: startEntry('apps/projector/src/main.ts', { ...env, OPS_PORT: String(ports.projectorOps) }, children),
      api: startEntry('apps/api/src/main.ts', env, children),
    };
    const readyPorts = { indexer: ports.indexerOps, projector: ports.projectorOps, api: ports.api };
    const exits: string[] = [];
    for (const [name, p] of Object.entries(procs))
      void p.exited.then((code) => exits.push(`${name} exited ${code}:\n${p.output().split('\n').slice(-30).join('\n')}`));
    const allStatus = async () => Object.fromEntries(await Promise.all(Object.entries(readyPorts).map(async ([n, port]) => [n, await status(port)] as const)));
    const allAre = async (code: number) => Object.values(await allStatus()).every((s) => s === code) && exits.length === 0;
    const noExit = () => expect(exits).toEqual([]);

    await waitFor('all three ready', () => allAre(200), 180_000, 250);

    // Load: the chain keeps producing swaps on both clusters throughout the faults.
    const load = setInterval(() => sim.advance('all', 2), 200);
    try {
      await new Promise((r) => setTimeout(r, 2000));

      // (1) Every connection of each process, one process at a time.
      for (const application of PROCESS_APPLICATIONS) {
        // In the target list, so it runs only on the rows the WHERE kept.
        const killed = await admin<{ ok: boolean }>(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1 OR ($1 = 'hadron-projector' AND application_name LIKE 'hadron-consumer:%')`,
          [application],
        );
        expect({ application, killed: killed.filter((k) => k.ok).length > 0 }).toEqual({ application, killed: true });
        await new Promise((r) => setTimeout(r, 1500));
        noExit();
      }
      await waitFor('all three ready after the terminations', () => allAre(200), 120_000, 250);
      noExit();

      // (2) The server restarts (fast shutdown) while they run.
      await pg.stop();
      await waitFor('all three 503 while the database is down', () => allAre(503), 30_000, 200);
      const outageStart = Object.entries(procs).map(([name, p]) => ({ name, p, cpu: processCpuSeconds(p.child.pid!), out: p.output().length }));
      await new Promise((r) => setTimeout(r, OUTAGE_SECONDS * 1000));
      const outage = outageStart.map(({ name, p, cpu, out }) => ({
        name,
        cpuSeconds: +(processCpuSeconds(p.child.pid!) - cpu).toFixed(2),
        logLines: p.output().slice(out).split('\n').length - 1,
      }));
      expect(outage.filter((o) => o.cpuSeconds > OUTAGE_MAX_CPU_SECONDS || o.logLines > OUTAGE_MAX_LOG_LINES)).toEqual([]);
      expect(outageStart.every((o) => o.cpu > 0)).toBe(true); // /proc was read (each had used CPU to start): the budget above is not vacuous
      noExit();
      pg = await startEmbeddedPostgres({ dataDir: pgDir(), port: ports.pg, log });
      await waitFor('all three ready again by themselves', () => allAre(200), 180_000, 250);
      noExit();
      await new Promise((r) => setTimeout(r, 2000));
    } finally {
      clearInterval(load);
    }

    // A clean run over the same chain, on a database of its own (one process, the Postgres log).
    const referenceUrl = withDatabase(pg.url, 'reference');
    await ensureDatabase(withDatabase(pg.url, 'postgres'), 'reference');
    const reference = startEntry('apps/main/src/main.ts', { ...env, DATABASE_URL: referenceUrl, KAFKA_BROKERS: '', PORT: String(ports.reference) }, children);
    await waitFor('reference ready', async () => (await status(ports.reference)) === 200, 180_000, 250);

    // Both settle on the final chain: equal as soon as both have projected everything. Exactly,
    // except WHEN account state took effect: the pool snapshot tables record the chain position of
    // the account changes they hold (`*_pos`, `config_slot`), and that position depends on when the
    // indexer read the accounts. Live, a change is placed at the transaction that wrote it; after an
    // outage the indexer catches up at a snapshot and places it there (AT-TARGET, see
    // cluster-indexer.ts and apps/indexer/README.md). Likewise midprice_state's `snapshot_*` is what
    // the latest account snapshot read, whenever that was (carried state: the points it fills in are
    // compared exactly above). Every other column must be equal.
    const snapshotTables = new Set(['pools.pools', 'midprice.midprice_state']);
    const whenObserved = /_pos$|^config_slot$|^snapshot_/;
    const rows = async (url: string, table: string) => {
      const pool = createPool(url, { max: 1, application: 'db-faults-test' });
      try {
        const [projection, name] = table.split('.');
        const build = await new BuildRegistry(pool).active(projection);
        const all = (await pool.query<Record<string, unknown>>(`SELECT * FROM "${build!.schemaName}"."${name}" ORDER BY 1, 2`)).rows;
        return all.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !whenObserved.test(k))));
      } finally {
        await endPool(pool);
      }
    };
    const exact = (c: Record<string, TableChecksum>) => Object.fromEntries(Object.entries(c).filter(([t]) => !snapshotTables.has(t)));
    let faulted: Record<string, TableChecksum> = {};
    let clean: Record<string, TableChecksum> = {};
    const snapshotsEqual = async () => {
      for (const t of snapshotTables) if (JSON.stringify(await rows(pg.url, t)) !== JSON.stringify(await rows(referenceUrl, t))) return false;
      return true;
    };
    await waitFor(
      'faulted read views equal to the clean run',
      async () => {
        [faulted, clean] = await Promise.all([readChecksums(pg.url), readChecksums(referenceUrl)]);
        return Object.keys(clean).length > 0 && JSON.stringify(exact(faulted)) === JSON.stringify(exact(clean)) && (await snapshotsEqual());
      },
      120_000,
      1000,
    ).catch(() => undefined);
    for (const table of Object.keys(clean).filter((t) => !snapshotTables.has(t) && JSON.stringify(faulted[t]) !== JSON.stringify(clean[t]))) {
      // Show the rows that differ, not only their checksums.
      expect({ table, rows: await rows(pg.url, table) }).toEqual({ table, rows: await rows(referenceUrl, table) });
    }
    expect(exact(faulted)).toEqual(exact(clean));
    for (const table of snapshotTables) expect({ table, rows: await rows(pg.url, table) }).toEqual({ table, rows: await rows(referenceUrl, table) });
    expect(Object.values(clean).some((t) => t.rows > 0)).toBe(true);
    noExit();

    // Still draining cleanly after it all.
    for (const p of [...Object.values(procs), reference]) p.child.kill('SIGTERM');
    const codes = await Promise.all([...Object.values(procs), reference].map((p) => p.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
  }, 600_000);
}
