import { ConfigError } from '../config/env';
import type { Logger } from '../logging/logger';

export interface Running {
  /** Stop accepting work, finish and commit what is in flight, release resources. */
  stop(): Promise<void>;
}

/**
 * Runs a deployable: starts it, and on SIGTERM/SIGINT drains it and exits 0. A configuration error
 * prints one clear line and exits 1; any other start failure exits 1 with the error logged.
 */
export function runProcess(name: string, log: () => Logger, start: () => Promise<Running>): void {
  let running: Running | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log().info({ signal }, `${name}: draining`);
    const force = setTimeout(() => {
      log().error(`${name}: drain took longer than 30 s; exiting`);
      process.exit(1);
    }, 30_000);
    force.unref();
    void (running?.stop() ?? Promise.resolve()).then(
      () => {
        log().info(`${name}: stopped cleanly`);
        process.exit(0);
      },
      (e: unknown) => {
        log().error({ err: e }, `${name}: error while stopping`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  start().then(
    (r) => {
      running = r;
      if (stopping) void r.stop().then(() => process.exit(0));
    },
    (e: unknown) => {
      if (e instanceof ConfigError) process.stderr.write(`${name}: ${e.message}\n`);
      else log().fatal({ err: e }, `${name}: failed to start`);
      process.exit(1);
    },
  );
}
