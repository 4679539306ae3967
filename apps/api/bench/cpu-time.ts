import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * Where the CPU of a load run went (Linux /proc; zeros elsewhere). Postgres backends that exit
 * during the run are not counted; the servers keep their pools open, so none do.
 */
export async function measureCpu<T extends { requests: number }>(serverPid: number, run: () => Promise<T>): Promise<T & { cpu: CpuSplit }> {
  const hasProc = processCpuSeconds(process.pid) > 0;
  const before = { server: processCpuSeconds(serverPid), postgres: postgresCpuSeconds(), self: process.cpuUsage() };
  const result = await run();
  const self = process.cpuUsage(before.self);
  const per = (seconds: number) => (hasProc && result.requests > 0 ? (seconds * 1000) / result.requests : 0);
  return {
    ...result,
    cpu: {
      server: per(processCpuSeconds(serverPid) - before.server),
      postgres: per(postgresCpuSeconds() - before.postgres),
      loadGenerator: per((self.user + self.system) / 1e6),
    },
  };
}
