import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../apps/simulator/src';
import { simIndexerEnv, waitFor } from '../indexer/indexer-harness';
import { freePort, getJson, healthy, ready, signalGroup, startScript, type Started } from './support/app-process';

/**
 * STOPPING THE WAY PROCESS MANAGERS STOP: the real npm scripts (`npm start`; `npm run start:indexer`,
 * `start:projector`, `start:api` in split mode), each in its own process group, and the signal sent
 * to the whole group — as systemd, docker and Ctrl-C do, so npm forwards a second copy to the app.
 * Every round: SIGTERM, SIGINT, or SIGTERM and another SIGTERM during the drain. Each process must
 * exit 0 after "stopped cleanly", no Postgres server of the data directory may survive, and the
 * next start serves the same data. The embedded server shares no process group with its owner, so
 * the group's signal never reaches it.
 */

const HISTORY_END_MS = 1_760_000_000_000;

let sim: RunningSimulator;
let dataDir: string;
const children: ChildProcess[] = [];
const ports = { pg: 0, api: 0, indexerOps: 0, projectorOps: 0 };

function env(): Record<string, string> {
  return {
    ...simIndexerEnv(sim, { INDEXER_POLL_MS: '200' }),
    PG_DATA_DIR: dataDir,
    EMBEDDED_PG_PORT: String(ports.pg),
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    OPS_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    POOL_LIST_REFRESH_MS: '200',
  };
}

/** Postgres server processes started on this data directory, if any. */
function serversOfDataDir(): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps.split('\n').filter((l) => l.includes(dataDir) && /postgres|postmaster/.test(l));
}

function expectNoServer(): void {
  expect({ pidFile: existsSync(join(dataDir, 'postmaster.pid')), processes: serversOfDataDir() }).toEqual({ pidFile: false, processes: [] });
}

async function poolList(): Promise<unknown[]> {
  const { status, body } = await getJson<{ data: unknown[] }>(ports.api, '/pools?page_size=100');
  return status === 200 ? body.data : [];
}

async function stopWith(started: Started[], signals: NodeJS.Signals[]): Promise<void> {
  for (const s of started) signalGroup(s, signals[0]);
  if (signals.length > 1) {
    // A second signal to the group while every process is draining.
    await waitFor('draining logged', () => started.every((s) => s.output().includes('draining')), 20_000, 20);
    for (const s of started) signalGroup(s, signals[1]);
  }
  const codes = await Promise.all(started.map((s) => s.exited));
  const said = started.map((s) =>
    s
      .output()
      .split('\n')
      .filter((l) => /draining|stopped cleanly|already draining|drain did not|embedded postgres|failed|error/i.test(l))
      .slice(-12),
  );
  expect({ codes, said }).toEqual({
    codes: started.map(() => 0),
    said: started.map(() => expect.arrayContaining([expect.stringContaining('stopped cleanly')])),
  });
  if (signals.length > 1) for (const s of started) expect(s.output()).toContain('already draining');
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'signals-e2e', pools: 3, historySeconds: 120, historyEndTimeMs: HISTORY_END_MS, live: false });
  dataDir = mkdtempSync(join(tmpdir(), 'hadron-signals-'));
  ports.pg = await freePort();
  ports.api = await freePort();
  ports.indexerOps = await freePort();
  ports.projectorOps = await freePort();
}, 120_000);

afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null && c.pid) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  // A server a failed run left behind: an immediate shutdown (SIGQUIT to the postmaster).
  if (existsSync(join(dataDir, 'postmaster.pid'))) {
    try {
      process.kill(Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGQUIT');
    } catch {
      /* gone */
    }
  }
  await sim?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

it('npm start: group SIGTERM, group SIGINT (Ctrl-C), and a second SIGTERM during the drain each stop cleanly, leave no Postgres behind, and the next start serves the same data', async () => {
  let served: unknown[] | null = null;
  for (const signals of [['SIGTERM'], ['SIGINT'], ['SIGTERM', 'SIGTERM']] as NodeJS.Signals[][]) {
    const app = startScript('start', env(), children);
    // Ready = indexed to the head and projected: the data is what it will stay (the cluster is not live).
    await waitFor(`npm start ready (${signals.join('+')} round)`, () => ready(ports.api), 120_000, 200);
    const list = await poolList();
    expect(list).toHaveLength(sim.groundTruth('mainnet-beta').pools.length);
    if (served === null) served = list;
    else expect(list).toEqual(served);
    await stopWith([app], signals);
    expectNoServer();
  }
}, 600_000);

it('split mode (start:indexer, start:projector, start:api on one embedded data directory): the whole group of each stopped at once, twice, leaves no Postgres behind', async () => {
  const before = await (async () => {
    const app = startScript('start', env(), children); // the data as the one-process app left it
    await waitFor('npm start ready', () => ready(ports.api), 120_000, 200);
    const list = await poolList();
    await stopWith([app], ['SIGTERM']);
    return list;
  })();
  for (const signals of [['SIGTERM', 'SIGTERM'], ['SIGINT']] as NodeJS.Signals[][]) {
    const indexer = startScript('start:indexer', { ...env(), OPS_PORT: String(ports.indexerOps) }, children);
    await waitFor('indexer ops /health', () => healthy(ports.indexerOps), 120_000, 200);
    const projector = startScript('start:projector', { ...env(), OPS_PORT: String(ports.projectorOps) }, children);
    await waitFor('projector ops /health', () => healthy(ports.projectorOps), 120_000, 200);
    const api = startScript('start:api', env(), children);
    await waitFor('api ready (split mode)', () => ready(ports.api), 120_000, 200);
    expect(await poolList()).toEqual(before);
    await stopWith([indexer, projector, api], signals);
    expectNoServer();
  }
}, 600_000);
