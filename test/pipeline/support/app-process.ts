import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { freePort } from '@hadron/platform/testing/free-port';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../../apps/simulator/src';

export { freePort };

/** `npm start`'s entry point (apps/main) as its own process, for end-to-end tests over HTTP. */

const ROOT = resolve(__dirname, '../../..');
/** No load balancer in front of these: stop without the API's shutdown grace (a test's `env` may set one). */
const TEST_DEFAULTS = { API_SHUTDOWN_GRACE_SECONDS: '0' };

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `npm start` without the build step: the same entry point, transpiled on the fly, with `env`
 * over the test's environment less DATABASE_URL, KAFKA_BROKERS and TEST_* (a machine with no
 * services configured; `env` sets what the test wants). `children` collects it for cleanup.
 */
export function startMain(env: Record<string, string>, children: ChildProcess[]): Started {
  return startEntry('apps/main/src/main.ts', env, children);
}

/** Another deployable's entry point (e.g. `apps/indexer/src/main.ts`), started the way `startMain` starts npm start's; stdout and stderr both collected. */
export function startEntry(entry: string, env: Record<string, string>, children: ChildProcess[]): Started {
  return track(
    spawn(process.execPath, ['-r', './scripts/register-ts.js', entry], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }),
    children,
  );
}

/** The test's environment less DATABASE_URL, KAFKA_BROKERS, TEST_* and npm's own, then `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const full: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(full)) if (k === 'DATABASE_URL' || k === 'KAFKA_BROKERS' || k.startsWith('TEST_') || k.startsWith('npm_')) delete full[k];
  return Object.assign(full, TEST_DEFAULTS, env);
}

function track(child: ChildProcess, children: ChildProcess[]): Started {
  children.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  // 'close', not 'exit': the last lines it printed may still be in the pipes when it exits.
  const exited = new Promise<number | null>((ok) => child.once('close', (code) => ok(code)));
  return { child, output: () => out, exited };
}

/** A JSON GET against the API on `port`. */
export async function getJson<T>(port: number, path: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: (await res.json()) as T };
}

export async function healthy(port: number, path = '/health'): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}${path}`)).status === 200;
  } catch {
    return false;
  }
}

/** `/health/ready` is 200: the data is current (see the API's readiness). */
export const ready = (port: number) => healthy(port, '/health/ready');

/**
 * An npm script as a user starts it (`npm start`, `npm run start:api`, …), build step included, in
 * a process group of its own: `signalGroup` then signals the whole group, as systemd, docker and
 * Ctrl-C do (npm forwards its own copy of the signal to the app, so the app sees it twice).
 */
export function startScript(script: string, env: Record<string, string>, children: ChildProcess[]): Started {
  const args = script === 'start' ? ['start'] : ['run', script];
  return track(spawn('npm', args, { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true }), children);
}

/** Signals the whole process group of a `startScript` child. */
export function signalGroup(started: Started, signal: NodeJS.Signals): void {
  process.kill(-started.child.pid!, signal);
}

/**
 * The simulated cluster, a fresh database and a free API port for one test file: created before
 * its tests, and after them the app processes it started killed, the simulator stopped, the
 * database dropped.
 */
export function simulatorAndDatabase(options: SimulatorOptions): { sim: RunningSimulator; db: TestDatabase; apiPort: number; children: ChildProcess[] } {
  const fixture = { children: [] as ChildProcess[] } as { sim: RunningSimulator; db: TestDatabase; apiPort: number; children: ChildProcess[] };
  beforeAll(async () => {
    fixture.sim = await startSimulator(options);
    fixture.db = await createTestDatabase();
    fixture.apiPort = await freePort();
  }, 120_000);
  afterAll(async () => {
    for (const c of fixture.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await fixture.sim?.stop();
    await fixture.db?.drop();
  }, 60_000);
  return fixture;
}
