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
 * The machine's shared memory in use (/proc/meminfo `Shmem`, in bytes; null without /proc): on
 * Linux, Postgres's shared buffers are shared memory that the kernel allocates, zeroed, the first
 * time a buffer is used after the server starts, so its growth during a run is how much of the
 * buffers that run used for the first time (and paid the page faults and zeroing of).
 */
export function machineShmemBytes(): number | null {
  try {
    const kb = /^Shmem:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * CPU seconds a run took: this process's, the other `pids'` together, and Postgres's; `machine`,
 * the whole machine's busy and available core-seconds meanwhile (also what the counted processes
 * miss: the server's checkpointer, WAL writer and autovacuum, the kernel's writeback; null
 * without /proc).
 */
export interface CpuSeconds {
  self: number;
  pids: number;
  postgres: number;
  machine: { busy: number; all: number } | null;
  /** How much the machine's shared memory grew meanwhile (machineShmemBytes; null without /proc). */
  shmemGrowthBytes: number | null;
}

/** How often cpuDuring looks for the database's backends: one that exits between two looks loses at most this much CPU. */
const BACKEND_POLL_MS = 250;

/**
 * The CPU seconds `run` took (Linux /proc; zeros elsewhere, `hasProc` false). With `databaseUrl`,
 * Postgres is the backends connected to that database (on a server shared with other work, the
 * rest is not the bench's; its checkpointer and WAL writer are not counted either, `machine` has
 * them), looked for every BACKEND_POLL_MS while it runs: one that starts and exits meanwhile (a
 * pooled connection closed when idle, a parallel worker) is counted up to its last look; without,
 * every process named postgres.
 */
export async function cpuDuring<T>(
  run: () => Promise<T>,
  opts: { pids?: readonly number[]; databaseUrl?: string } = {},
): Promise<{ result: T; cpu: CpuSeconds; hasProc: boolean }> {
  const hasProc = processCpuSeconds(process.pid) > 0;
  const { databaseUrl } = opts;
  const pids = opts.pids ?? [];
  const backends = databaseUrl && hasProc ? await BackendCpu.start(databaseUrl) : undefined;
  const sum = () => pids.reduce((t, pid) => t + processCpuSeconds(pid), 0);
  const before = {
    pids: sum(),
    postgres: databaseUrl ? 0 : postgresCpuSeconds(),
    self: process.cpuUsage(),
    machine: machineCpuSeconds(),
    shmem: machineShmemBytes(),
  };
  let result: T;
  try {
    result = await run();
  } finally {
    await backends?.stop();
  }
  const self = process.cpuUsage(before.self);
  const after = machineCpuSeconds();
  const shmem = machineShmemBytes();
  const machine = before.machine && after ? { busy: after.busy - before.machine.busy, all: after.all - before.machine.all } : null;
  const postgres = backends ? backends.seconds() : databaseUrl ? 0 : postgresCpuSeconds() - before.postgres;
  return {
    result,
    hasProc,
    cpu: {
      self: (self.user + self.system) / 1e6,
      pids: sum() - before.pids,
      postgres,
      machine,
      shmemGrowthBytes: before.shmem !== null && shmem !== null ? shmem - before.shmem : null,
    },
  };
}

/** The CPU of a database's backends while it is followed: each one's first and last reading. */
class BackendCpu {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private looking: Promise<void> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  /** The first look that failed: stop() throws it (a count with holes in it is not a figure). */
  private failed?: Error;

  private constructor(private readonly client: Client) {}

  /** Follows `databaseUrl`'s backends from now on; the ones there now start at their CPU so far. */
  static async start(databaseUrl: string): Promise<BackendCpu> {
    const client = new Client({ connectionString: databaseUrl, application_name: 'bench-cpu-probe' });
    await client.connect();
    const b = new BackendCpu(client);
    await b.look(true);
    b.timer = setInterval(() => (b.looking = b.looking.then(() => b.look(false)).catch((e: Error) => void (b.failed ??= e))), BACKEND_POLL_MS);
    return b;
  }

  /** Reads every backend's CPU; one first seen after the start counts from zero (it started meanwhile). */
  private async look(atStart: boolean): Promise<void> {
    const { rows } = await this.client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    for (const { pid } of rows) {
      const cpu = processCpuSeconds(pid);
      if (!this.first.has(pid)) this.first.set(pid, atStart ? cpu : 0);
      if (cpu > 0) this.last.set(pid, cpu); // 0: it exited between the query and the read
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.looking;
    try {
      await this.look(false);
    } finally {
      await this.client.end();
    }
    if (this.failed) throw new Error(`reading the database's backends during the run failed: ${this.failed.message}`);
  }

  seconds(): number {
    let total = 0;
    for (const [pid, first] of this.first) total += Math.max(0, (this.last.get(pid) ?? first) - first);
    return total;
  }
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
