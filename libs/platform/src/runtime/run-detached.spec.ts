import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDetachedAgainIfSignalled, type DetachedError } from './run-detached';

/**
 * Real child processes (sh scripts) that die of a signal, exit with a code or succeed: what the
 * embedded Postgres's pg_ctl runs go through when a group signal lands between fork and setsid.
 */
describe('runDetachedAgainIfSignalled', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'run-detached-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A script that logs each run (with its session id) to <name>.runs, then does `body`. */
  const script = (name: string, body: string): string => {
    const file = join(dir, `${name}.sh`);
    writeFileSync(file, `#!/bin/sh\necho "$$ $(cut -d' ' -f6 /proc/$$/stat)" >> "${join(dir, `${name}.runs`)}"\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const runs = (name: string): string[][] =>
    readFileSync(join(dir, `${name}.runs`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
  const opts = { env: process.env };

  it('runs a command killed by a signal again, in a session of its own, and resolves when it succeeds', async () => {
    const file = script('once', `if [ ! -e "${join(dir, 'once.killed')}" ]; then touch "${join(dir, 'once.killed')}"; kill -TERM $$; sleep 5; fi\nexit 0`);
    const retried: Array<[string, number]> = [];
    await runDetachedAgainIfSignalled(file, ['stop'], opts, { delayMs: 10, onRetry: (s, a) => retried.push([s, a]) });
    expect(retried).toEqual([['SIGTERM', 1]]);
    const r = runs('once');
    expect(r).toHaveLength(2);
    // setsid: each run leads its own session, out of reach of this process group's signals.
    for (const [pid, sid] of r) expect(sid).toBe(pid);
  });

  it('gives up after three runs killed by a signal, with the signal', async () => {
    const file = script('always', 'kill -KILL $$');
    const err = await runDetachedAgainIfSignalled(file, ['start'], opts, { delayMs: 10 }).then(
      () => undefined,
      (e: DetachedError) => e,
    );
    expect(err?.signal).toBe('SIGKILL');
    expect(err?.message).toContain('exited with SIGKILL');
    expect(runs('always')).toHaveLength(3);
  });

  it('does not run again a command that exited with a code (pg_ctl status: not running), and keeps its stderr', async () => {
    const file = script('status', 'echo "pg_ctl: no server running" >&2\nexit 3');
    const retried: string[] = [];
    const err = await runDetachedAgainIfSignalled(file, ['status'], opts, { delayMs: 10, onRetry: (s) => retried.push(s) }).then(
      () => undefined,
      (e: DetachedError) => e,
    );
    expect(err?.code).toBe(3);
    expect(err?.signal).toBeNull();
    expect(err?.stderr).toContain('no server running');
    expect(retried).toEqual([]);
    expect(runs('status')).toHaveLength(1);
  });
});
