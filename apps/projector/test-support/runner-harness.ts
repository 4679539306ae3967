import type { HadronEvent } from '@hadron/contracts';
import { createLogger, eventLogMigrations, PostgresEventLogProducer, PostgresFanOut, type EventLogConsumer } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { BuildRegistry } from '../src/builds/build-registry';
import { projectorMigrations } from '../src/migrations';
import type { ProjectionDefinition } from '../src/projection';
import { ALL_PROJECTIONS } from '../src/projections';
import { ProjectorRunner } from '../src/runner/projector-runner';

export const testLog = createLogger('test', 'silent');

/** Polls `probe` until it returns something truthy (returned), failing after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Whether a switch's housekeeping is done (`projection`'s builds, or every one's): a switch retires
 * the replaced build in its own transaction and drops it in the next (dropObsolete), so "active and
 * caught up" can be seen between the two.
 */
export const noneRetired = async (registry: BuildRegistry, projection?: string): Promise<boolean> =>
  !(await registry.list(projection)).some((b) => b.status === 'retired');

export interface RunnerSettings {
  /** How often runners re-read the build registry. */
  registryPollMs: number;
  maxBatchSize: number;
  /** The consumers' idle poll (they also wake on appends). */
  idlePollMs: number;
}

export interface RunnerHarness {
  /** The database of the file (event log and projector migrations applied); set in beforeAll. */
  readonly db: TestDatabase;
  readonly registry: BuildRegistry;
  /** A consumer of the Postgres log, as a process's builds get them: all through one fan-out reader. */
  newConsumer(): EventLogConsumer;
  /** Starts a projector runner over the Postgres log (its own fan-out reader, as in its own process); stopped after the test. */
  startRunner(projections?: readonly ProjectionDefinition[], nowSec?: () => number): Promise<ProjectorRunner>;
  append(events: readonly HadronEvent[]): Promise<void>;
}

/**
 * Registers a file's hooks for projector runner tests: a fresh database (dropped after all tests)
 * and every runner a test started stopped after it, so no consumer outlives its test.
 */
export function useRunnerHarness(settings: RunnerSettings): RunnerHarness {
  let db: TestDatabase | undefined;
  let registry: BuildRegistry | undefined;
  const runners: ProjectorRunner[] = [];
  let shared: PostgresFanOut | undefined;
  const fanOut = () => new PostgresFanOut(h.db.pool, h.db.url, testLog, settings.idlePollMs);
  const h: RunnerHarness = {
    get db() {
      if (!db) throw new Error('the runner harness database is created in beforeAll');
      return db;
    },
    get registry() {
      return (registry ??= new BuildRegistry(h.db.pool));
    },
    newConsumer: () => (shared ??= fanOut()).consumer(),
    startRunner: async (projections = ALL_PROJECTIONS, nowSec) => {
      const r = new ProjectorRunner({
        pool: h.db.pool,
        log: testLog,
        projections,
        registryPollMs: settings.registryPollMs,
        maxBatchSize: settings.maxBatchSize,
        nowSec,
      });
      runners.push(r);
      const reader = fanOut();
      await r.start(() => reader.consumer());
      return r;
    },
    append: (events) => new PostgresEventLogProducer(h.db.pool).append(events),
  };
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
  });
  afterAll(async () => {
    await db?.drop();
  });
  return h;
}
