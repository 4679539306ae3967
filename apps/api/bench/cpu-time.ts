import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';

/** CPU seconds used so far by a process (user + system), from /proc; 0 where /proc is absent. */
function processCpuSeconds(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) "
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/** Every process named `postgres` (the server and its backends): their CPU seconds together. */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += processCpuSeconds(pid);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

export interface CpuSplit {
  /** CPU milliseconds per request in the server under test, in Postgres, and in the load generator. */
  server: number;
  postgres: number;
  loadGenerator: number;
}

/** The backends connected to `databaseUrl`'s database (the server under test's pool), from pg_stat_activity. */
async function databaseBackends(databaseUrl: string): Promise<number[]> {
  const c = new Client({ connectionString: databaseUrl, application_name: 'bench-cpu-probe' });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
    return rows.map((r) => r.pid);
  } finally {
    await c.end();
  }
}

/**
 * Where the CPU of a load run went (Linux /proc; zeros elsewhere). With `databaseUrl`, Postgres is
 * only the backends connected to that database (on a server shared with other work, the rest is
 * not the bench's); without, every process named postgres. Backends that exit during the run are
 * not counted; the servers keep their pools open, so none do.
 */
export async function measureCpu<T extends { requests: number }>(
  serverPid: number,
  run: () => Promise<T>,
  databaseUrl?: string,
): Promise<T & { cpu: CpuSplit }> {
  const hasProc = processCpuSeconds(process.pid) > 0;
  const backendsBefore = databaseUrl && hasProc ? await databaseBackends(databaseUrl) : [];
  const pgBefore = new Map(backendsBefore.map((pid) => [pid, processCpuSeconds(pid)]));
  const before = { server: processCpuSeconds(serverPid), postgres: databaseUrl ? 0 : postgresCpuSeconds(), self: process.cpuUsage() };
  const result = await run();
  const self = process.cpuUsage(before.self);
  let postgres: number;
  if (databaseUrl && hasProc) {
    const pids = new Set([...backendsBefore, ...(await databaseBackends(databaseUrl))]);
    postgres = [...pids].reduce((sum, pid) => sum + Math.max(0, processCpuSeconds(pid) - (pgBefore.get(pid) ?? 0)), 0);
  } else {
    postgres = postgresCpuSeconds() - before.postgres;
  }
  const per = (seconds: number) => (hasProc && result.requests > 0 ? (seconds * 1000) / result.requests : 0);
  return {
    ...result,
    cpu: {
      server: per(processCpuSeconds(serverPid) - before.server),
      postgres: per(postgres),
      loadGenerator: per((self.user + self.system) / 1e6),
    },
  };
}
