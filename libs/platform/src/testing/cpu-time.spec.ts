import { cpus } from 'node:os';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { machineCpuSeconds, machineShmemBytes } from './cpu-time';

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

describe('machineShmemBytes', () => {
  const withFree = process.platform === 'linux' && existsSync('/dev/shm') && spawnSync('free', ['-b']).status === 0 ? it : it.skip;
  const file = `/dev/shm/hadron-cpu-time-spec-${process.pid}`;
  afterEach(() => rmSync(file, { force: true }));

  withFree("reads the shared memory in use that procps's free reports, 256 MB of tmpfs included", () => {
    const shared = () => Number(/^Mem:(?:\s+\d+){3}\s+(\d+)/m.exec(spawnSync('free', ['-b'], { encoding: 'utf8' }).stdout)![1]);
    const size = 256 * 1024 * 1024;
    writeFileSync(file, Buffer.alloc(size, 1)); // tmpfs pages are shared memory
    const before = shared();
    const read = machineShmemBytes();
    const after = shared();
    expect(Math.min(before, after)).toBeGreaterThanOrEqual(size);
    // Other processes may allocate or free shared memory between the readings.
    expect(read).toBeGreaterThanOrEqual(Math.min(before, after) - 64 * 1024 * 1024);
    expect(read).toBeLessThanOrEqual(Math.max(before, after) + 64 * 1024 * 1024);
  });
});
