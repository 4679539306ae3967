import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { createLogger } from '../logging/logger';
import { startEmbeddedPostgres } from './embedded-postgres';

const log = createLogger('test', 'silent');
const ROOT = resolve(__dirname, '../../../..');

async function count(url: string): Promise<number> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query('SELECT count(*) AS n FROM kept')).rows[0].n);
  } finally {
    await c.end();
  }
}

describe('embedded Postgres (the zero-setup default)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hadron-embedded-'));
    chmodSync(dir, 0o755); // the server runs as an unprivileged user when we are root
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps data across a stop and start, and reuses a server left running by a killed process', async () => {
    const dataDir = join(dir, 'pg');
    const port = 54400 + Math.floor(Math.random() * 500);
    const first = await startEmbeddedPostgres({ dataDir, port, log });
    expect(first.reused).toBe(false);
    const c = new Client({ connectionString: first.url });
    await c.connect();
    await c.query('CREATE TABLE kept (n int); INSERT INTO kept VALUES (1), (2)');
    await c.end();
    await first.stop();

    // A process starts the server and is SIGKILLed: the server outlives it.
    const script = `require('${ROOT}/scripts/register-ts.js');
      const { startEmbeddedPostgres } = require('${ROOT}/libs/platform/src/database/embedded-postgres.ts');
      const { createLogger } = require('${ROOT}/libs/platform/src/logging/logger.ts');
      startEmbeddedPostgres({ dataDir: '${dataDir}', port: ${port}, log: createLogger('x', 'silent') }).then(() => { console.log('up'); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((r) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('up') && r()));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const again = await startEmbeddedPostgres({ dataDir, port: port + 1, log });
    expect(again.reused).toBe(true);
    expect(again.url).toContain(`:${port}/`); // where the surviving server listens
    expect(await count(again.url)).toBe(2);

    // A second process on the same data directory, still connected: releasing leaves it running.
    const sharer = await startEmbeddedPostgres({ dataDir, port, log });
    expect(sharer.reused).toBe(true);
    const open = new Client({ connectionString: sharer.url });
    await open.connect();
    expect(await again.release()).toBe('left running');
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(true);
    expect(Number((await open.query('SELECT count(*) AS n FROM kept')).rows[0].n)).toBe(2);
    await open.end();
    // The last one out stops the adopted server: nothing outlives the processes using it.
    expect(await sharer.release()).toBe('stopped');
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);

    const cold = await startEmbeddedPostgres({ dataDir, port, log });
    expect(cold.reused).toBe(false);
    expect(await count(cold.url)).toBe(2);
    await cold.stop();
  }, 120_000);
});
