import { ConfigError } from '../config/env';
import type { Logger } from '../logging/logger';
import { redactSecrets } from '../logging/redact';
import { runLastResort } from './last-resort';

export interface Running {
  /** Stop accepting work, finish and commit what is in flight, release resources. */
  stop(): Promise<void>;
}

/** How long a drain may take before the process gives up on it (SHUTDOWN_DEADLINE_SECONDS). */
const DEFAULT_DEADLINE_S = 30;
/** What the last-resort cleanups (e.g. stopping the embedded Postgres) may take on a failed exit. */
const LAST_RESORT_MS = 15_000;

function deadlineSeconds(): number {
  const raw = process.env.SHUTDOWN_DEADLINE_SECONDS;
  if (raw === undefined || raw === '') return DEFAULT_DEADLINE_S;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 3600) throw new ConfigError(`invalid configuration: SHUTDOWN_DEADLINE_SECONDS: must be an integer 1..3600`);
  return n;
}

/**
 * Runs a deployable the way process managers treat it. The first SIGTERM or SIGINT drains it and
 * exits 0 ("stopped cleanly"). Every further signal during the drain is noted and ignored:
 * systemd, docker and `kill -- -PGID` signal the whole process group, and npm forwards its own
 * copy, so a second signal is the normal case, not a request to die. A drain that outlasts
 * SHUTDOWN_DEADLINE_SECONDS exits 1 with one clear line. A configuration error prints one line and
 * exits 1; a start failure or an uncaught error exits 1 with the error logged. Every non-zero exit
 * first runs the last-resort cleanups (the embedded Postgres this process owns is stopped).
 */
export function runProcess(name: string, log: () => Logger, start: () => Promise<Running>): void {
  let running: Running | undefined;
  let stopping = false;
  let deadlineS = DEFAULT_DEADLINE_S;
  const fail = (why: string, err?: unknown): void => {
    if (err === undefined) log().error(why);
    else log().fatal({ err: describe(err) }, why);
    void runLastResort(LAST_RESORT_MS).finally(() => process.exit(1));
  };
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      log().info({ signal }, `${name}: already draining; ${signal} ignored`);
      return;
    }
    stopping = true;
    log().info({ signal, deadlineSeconds: deadlineS }, `${name}: draining`);
    const force = setTimeout(() => fail(`${name}: drain did not finish within ${deadlineS} s (SHUTDOWN_DEADLINE_SECONDS); exiting 1`), deadlineS * 1000);
    force.unref();
    if (!running) return; // still starting: the drain begins once it has started
    void running.stop().then(
      () => {
        log().info(`${name}: stopped cleanly`);
        process.exit(0);
      },
      (e: unknown) => fail(`${name}: error while stopping`, e),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('uncaughtException', (e) => fail(`${name}: uncaught error; exiting`, e));
  process.on('unhandledRejection', (e) => fail(`${name}: unhandled rejection; exiting`, e));
  try {
    deadlineS = deadlineSeconds();
  } catch (e) {
    process.stderr.write(`${name}: ${redactSecrets((e as Error).message)}\n`);
    process.exit(1);
  }
  start().then(
    (r) => {
      running = r;
      if (!stopping) return;
      void r.stop().then(
        () => {
          log().info(`${name}: stopped cleanly`);
          process.exit(0);
        },
        (e: unknown) => fail(`${name}: error while stopping`, e),
      );
    },
    (e: unknown) => {
      if (e instanceof ConfigError) {
        process.stderr.write(`${name}: ${redactSecrets(e.message)}\n`);
        void runLastResort(LAST_RESORT_MS).finally(() => process.exit(1));
      } else fail(`${name}: failed to start`, e);
    },
  );
}

/** An error as pino's serializer wants it; a thrown non-Error (never "undefined") as a message. */
function describe(e: unknown): unknown {
  if (e instanceof Error) return e;
  return new Error(`non-error thrown: ${typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e))}`);
}
