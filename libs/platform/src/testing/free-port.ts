import { createServer } from 'node:net';

/**
 * Ports for test servers come from below Linux's default ephemeral range (32768–60999), so that no
 * outgoing connection (a test's thousands of client sockets) can be holding one as its local port,
 * and the kernel never hands one to another process asking for port 0. The range is cut into one
 * slice per jest worker, so two test files running at once never pick the same port, and a process
 * never hands out the same port twice: two `await freePort()` in a row are always different (binding
 * port 0 and closing it, as this did before, can return the same port twice, and did: a rolling-restart
 * test got two equal ports, one API exited with EADDRINUSE, and the test failed on the dead process).
 */
const LOW = 15_000;
const HIGH = 32_767;
const SLICES = 8;
const SLICE = Math.floor((HIGH - LOW + 1) / SLICES);

const handedOut = new Set<number>();

function sliceOf(workerId: string | undefined): number {
  const id = Number(workerId);
  return Number.isInteger(id) && id > 0 ? (id - 1) % SLICES : 0;
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now, and not returned before by this process. */
export async function freePort(): Promise<number> {
  const from = LOW + sliceOf(process.env.JEST_WORKER_ID) * SLICE;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = from + Math.floor(Math.random() * SLICE);
    if (handedOut.has(port)) continue;
    handedOut.add(port); // taken or not, never try it again
    if (await bindable(port)) return port;
  }
  throw new Error(`freePort: no free port found in ${from}-${from + SLICE - 1} after 200 tries`);
}
