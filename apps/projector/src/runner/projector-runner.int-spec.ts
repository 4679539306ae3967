import { until, useRunnerHarness } from '../../test-support/runner-harness';
import type { ProjectionDefinition } from '../projection';
import { poolsProjection } from '../projections/pools/pools.projection';

describe('stopping a projector runner', () => {
  const h = useRunnerHarness({ registryPollMs: 100, maxBatchSize: 50, idlePollMs: 100 });

  /** Session advisory locks held in the test's database (the projection and refresh locks). */
  const advisoryLocks = async () =>
    (
      await h.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      )
    ).rows[0].n;

  it('waits for a wall-clock refresh already running, and leaves no lock or connection behind', async () => {
    let started = 0;
    let finished = 0;
    const slowRefresh: ProjectionDefinition = {
      ...poolsProjection,
      refreshEveryMs: 20,
      refresh: async (tx, schema, nowSec) => {
        started++;
        await tx.query('SELECT pg_sleep(0.3)');
        await poolsProjection.refresh!(tx, schema, nowSec);
        finished++;
      },
    };
    const runner = await h.startRunner([slowRefresh]);
    await until('a refresh in flight', async () => started > finished, 30_000, 5);

    await runner.stop();
    expect({ started, finished }).toEqual({ started, finished: started });
    expect(await advisoryLocks()).toBe(0);
    // Nothing checked out of the pool is left: every connection it opened is idle.
    expect(h.db.pool.totalCount).toBe(h.db.pool.idleCount);
    await new Promise((r) => setTimeout(r, 100));
    expect(finished).toBe(started); // and no refresh starts after stop
  });
});
