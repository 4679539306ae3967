import { cpus } from 'node:os';
import { machineCpuSeconds } from './cpu-time';

/** libuv's own reading of /proc/stat (os.cpus(), per core, in ms): busy without softirq, all without iowait, softirq and steal. */
function libuvSeconds(): { busy: number; all: number } {
  let busy = 0;
  let idle = 0;
  for (const { times } of cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    idle += times.idle;
  }
  return { busy: busy / 1000, all: (busy + idle) / 1000 };
}

describe('machineCpuSeconds', () => {
  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux('reads the busy and available core-seconds libuv reads, plus what libuv leaves out (softirq; iowait and steal)', () => {
    const before = libuvSeconds();
    const machine = machineCpuSeconds()!;
    const after = libuvSeconds();
    expect(machine).not.toBeNull();
    // softirq is busy time libuv does not count; iowait and steal are time it does not count at all.
    const leftOut = machine.all - after.all;
    expect(leftOut).toBeGreaterThanOrEqual(-0.05 * cpus().length);
    expect(machine.busy).toBeGreaterThanOrEqual(before.busy - 0.01 * cpus().length);
    expect(machine.busy).toBeLessThanOrEqual(after.busy + leftOut + 0.01 * cpus().length);
    expect(machine.all).toBeGreaterThan(machine.busy);
  });
});
