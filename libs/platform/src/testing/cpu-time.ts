import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';

/** CPU seconds used so far by a process (user + system), from /proc; 0 where /proc is absent. */
export function processCpuSeconds(pid: number | string): number {
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
 * The whole machine's CPU from /proc/stat's `cpu` line, in seconds summed over its cores: busy
 * (user, nice, system, irq, softirq) and all (with idle, iowait and the hypervisor's steal); null
 * where /proc is absent.
 */
export function machineCpuSeconds(): { busy: number; all: number } | null {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    const busy = user + nice + system + irq + softirq;
    return { busy: busy / 100, all: (busy + idle + iowait + (steal || 0)) / 100 }; // USER_HZ = 100
  } catch {
    return null;
  }
}

/**
 * CPU seconds a run took: this process's, the other `pids'` together, and Postgres's; `machine`,
 * the whole machine's busy and available core-seconds meanwhile (also what the counted processes
 * miss: the server's checkpointer, WAL writer and autovacuum, workers that came and went, the
 * kernel's writeback; null without /proc).
 */
export interface CpuSeconds {
  self: number;
  pids: number;
  postgres: number;
  machine: { busy: number; all: number } | null;
}

/**
 * The CPU seconds `run` took (Linux /proc; zeros elsewhere, `hasProc` false). With `databaseUrl`,
 * Postgres is only the backends connected to that database (on a server shared with other work,
 * the rest is not the bench's; its checkpointer and WAL writer are not counted either); without,
 * every process named postgres. Backends that start and exit during the run are not counted.
 */
export async function cpuDuring<T>(
  run: () => Promise<T>,
  opts: { pids?: readonly number[]; databaseUrl?: string } = {},
): Promise<{ result: T; cpu: CpuSeconds; hasProc: boolean }> {
  const hasProc = processCpuSeconds(process.pid) > 0;
  const { databaseUrl } = opts;
  const pids = opts.pids ?? [];
  const backendsBefore = databaseUrl && hasProc ? await databaseBackends(databaseUrl) : [];
  const pgBefore = new Map(backendsBefore.map((pid) => [pid, processCpuSeconds(pid)]));
  const sum = () => pids.reduce((t, pid) => t + processCpuSeconds(pid), 0);
  const before = { pids: sum(), postgres: databaseUrl ? 0 : postgresCpuSeconds(), self: process.cpuUsage(), machine: machineCpuSeconds() };
  const result = await run();
  const self = process.cpuUsage(before.self);
  const after = machineCpuSeconds();
  const machine = before.machine && after ? { busy: after.busy - before.machine.busy, all: after.all - before.machine.all } : null;
  let postgres: number;
  if (databaseUrl && hasProc) {
    const all = new Set([...backendsBefore, ...(await databaseBackends(databaseUrl))]);
    postgres = [...all].reduce((t, pid) => t + Math.max(0, processCpuSeconds(pid) - (pgBefore.get(pid) ?? 0)), 0);
  } else {
    postgres = postgresCpuSeconds() - before.postgres;
  }
  return { result, hasProc, cpu: { self: (self.user + self.system) / 1e6, pids: sum() - before.pids, postgres, machine } };
}

/**
 * Where the CPU of a load run went, per request (cpuDuring): the server under test, Postgres, and
 * the load generator (this process).
 */
export async function measureCpu<T extends { requests: number }>(
  serverPid: number,
  run: () => Promise<T>,
  databaseUrl?: string,
): Promise<T & { cpu: CpuSplit }> {
  const { result, cpu, hasProc } = await cpuDuring(run, { pids: [serverPid], databaseUrl });
  const per = (seconds: number) => (hasProc && result.requests > 0 ? (seconds * 1000) / result.requests : 0);
  return { ...result, cpu: { server: per(cpu.pids), postgres: per(cpu.postgres), loadGenerator: per(cpu.self) } };
}
