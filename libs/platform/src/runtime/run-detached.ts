import { spawn } from 'node:child_process';

export interface DetachedOptions {
  uid?: number;
  gid?: number;
  env: NodeJS.ProcessEnv;
}

/** A detached run that failed: exit code or signal, and the end of its stderr. */
export type DetachedError = Error & { stderr: string; code: number | null; signal: NodeJS.Signals | null };

/** `file args` in a session of its own (setsid): resolves on exit 0, else rejects (DetachedError). */
function runDetached(file: string, args: string[], opts: DetachedOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...opts, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(Object.assign(new Error(`${file} ${args[0]} exited with ${code ?? signal}`), { stderr, code, signal }));
    });
  });
}

/**
 * runDetached, run again (up to `attempts` in all, `delayMs` apart) when the child died of a
 * signal. A group signal (the second SIGTERM of a group stop) that lands between fork and setsid
 * still reaches the child, which dies of it before it runs the command: it did nothing, so running
 * it again is safe for commands that are (pg_ctl start -w, stop -w, status). A child that exits
 * with a code (a real failure, or `pg_ctl status` saying "not running") is not run again.
 */
export async function runDetachedAgainIfSignalled(
  file: string,
  args: string[],
  opts: DetachedOptions,
  retry: { attempts?: number; delayMs?: number; onRetry?: (signal: NodeJS.Signals, attempt: number) => void } = {},
): Promise<void> {
  const attempts = retry.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await runDetached(file, args, opts);
    } catch (e) {
      const signal = (e as Partial<DetachedError>).signal;
      if (!signal || attempt >= attempts) throw e;
      retry.onRetry?.(signal, attempt);
      await new Promise((r) => setTimeout(r, retry.delayMs ?? 50));
    }
  }
}
