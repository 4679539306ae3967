import { Client } from 'pg';
import { cpuDuring, processCpuSeconds } from './cpu-time';
import { createTestDatabase, type TestDatabase } from './test-database';

describe('cpuDuring with a database', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('counts a backend that connects, works and exits while the run goes on (a pooled connection closed when idle)', async () => {
    let burned = 0;
    const { cpu, hasProc } = await cpuDuring(
      async () => {
        const c = new Client({ connectionString: db.url });
        await c.connect();
        try {
          const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
          await c.query('SELECT count(*) FROM generate_series(1, 4000000)');
          burned = processCpuSeconds(pid);
          await new Promise((r) => setTimeout(r, 1000)); // idle, as a pooled connection is before it is closed
        } finally {
          await c.end();
        }
        await new Promise((r) => setTimeout(r, 500)); // the run goes on without it
      },
      { databaseUrl: db.url },
    );
    expect(hasProc).toBe(true); // Linux: the test and CI machines
    expect(burned).toBeGreaterThan(0);
    expect(cpu.postgres).toBeGreaterThanOrEqual(burned);
  });
});
