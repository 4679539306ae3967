import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

/** `npm start`'s entry point (apps/main) as its own process, for end-to-end tests over HTTP. */

const ROOT = resolve(__dirname, '../../..');

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

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
  const full: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(full)) if (k === 'DATABASE_URL' || k === 'KAFKA_BROKERS' || k.startsWith('TEST_')) delete full[k];
  Object.assign(full, env);
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'apps/main/src/main.ts'], { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
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

export async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`)).status === 200;
  } catch {
    return false;
  }
}
