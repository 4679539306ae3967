import type { HadronEvent } from '@hadron/contracts';
import { generateEvents } from '../../test-support/event-generator';
import { buildShape } from '../../test-support/build-shape';
import { checksumBuild } from '../../test-support/read-checksum';
import { testLog as log, noneRetired, until, useRunnerHarness } from '../../test-support/runner-harness';
import type { ProjectionDefinition } from '../projection';
import { ALL_PROJECTIONS, projectionByName } from '../projections';
import { rebuildProjection } from '../replay/rebuild';
import { createBuildTables } from './build-objects';
import type { ProjectorRunner } from '../runner/projector-runner';

describe('projection builds: registry, replay, atomic switch', () => {
  const h = useRunnerHarness({ registryPollMs: 200, maxBatchSize: 500, idlePollMs: 200 });
  const consumerFactory = h.newConsumer;
  const startRunner = h.startRunner;
  const caughtUp = (r: ProjectorRunner) =>
    until('runner caught up', async () => {
      const lag = await r.lag();
      return lag.projections.length === ALL_PROJECTIONS.length && lag.total === 0n && lag.projections.every((p) => p.status === 'active');
    });
  const count = async (view: string) => Number((await h.db.pool.query(`SELECT count(*) AS n FROM read.${view}`)).rows[0].n);
  const events: HadronEvent[] = [...generateEvents({ events: 6000, poolsPerCluster: 4, seed: 11 })];
  const swapCount = (es: readonly HadronEvent[]) => es.filter((e) => e.type === 'SwapExecuted').length;

  it('starts with an empty, active v1 build of every projection behind the read views', async () => {
    expect((await h.registry.list()).map((b) => [b.projection, b.consumerGroup, b.status, b.schemaName])).toEqual([
      ['midprice', 'midprice.v1.initial', 'active', 'proj_midprice_v1_initial'],
      ['pools', 'pools.v1.initial', 'active', 'proj_pools_v1_initial'],
      ['swaps', 'swaps.v1.initial', 'active', 'proj_swaps_v1_initial'],
    ]);
    for (const view of [
      'pools',
      'swaps',
      'swap_fee_splits',
      'fee_rollup_hourly',
      'fee_rollup_minute',
      'fee_recipient_hourly',
      'volume_daily',
      'midprice_points',
      'midprice_minute',
      'midprice_hourly',
    ]) {
      expect(await count(view)).toBe(0);
    }
  });

  /** The read contract as readers see it: every `read` view's columns with their types. */
  const readColumns = async () =>
    (
      await h.db.pool.query<{ view: string; columns: string }>(
        `SELECT table_name AS view, string_agg(column_name || ' ' || data_type, ', ' ORDER BY column_name) AS columns
           FROM information_schema.columns WHERE table_schema = 'read' GROUP BY table_name ORDER BY table_name`,
      )
    ).rows;

  it("upgrades in place to the code's versions, and the read contract keeps every view's columns and types (as the migrations create them: scripts/schema.snapshot.txt)", async () => {
    const fresh = await readColumns();
    expect(fresh.map((r) => r.view)).toEqual(expect.arrayContaining(['pools', 'swaps', 'fee_recipient_minute', 'midprice_points', 'projection_status']));
    const runner = await startRunner();
    await caughtUp(runner);
    await runner.stop();
    expect((await h.registry.list()).filter((b) => b.status === 'active').map((b) => [b.projection, b.version])).toEqual(
      ALL_PROJECTIONS.map((d) => [d.name, d.schema.version]).sort(),
    );
    expect(await readColumns()).toEqual(fresh);
  });

  it('projects the log, rebuilds a projection into a new build with identical tables (their keys and indexes as the DDL declares them), and switches the views atomically', async () => {
    await h.append(events);
    const runner = await startRunner();
    await caughtUp(runner);
    expect(await count('swaps')).toBe(swapCount(events));
    const swaps = projectionByName('swaps');
    const served = (await h.registry.active('swaps'))!;
    const before = await checksumBuild(h.db.pool, swaps, served.schemaName);

    const progress: number[] = [];
    const result = await rebuildProjection(swaps, {
      pool: h.db.pool,
      consumerFactory,
      log,
      maxBatchSize: 700,
      keepRetiredBuilds: 1,
      progressEveryMs: 50,
      onProgress: (p) => progress.push(p.done),
    });
    expect(result.events).toBe(events.length);
    expect(progress.at(-1)).toBe(events.length);
    expect(result.build.consumerGroup).toMatch(new RegExp(`^swaps\\.v${swaps.schema.version}\\.b[0-9a-z]+$`));
    expect(result.previous?.schemaName).toBe(served.schemaName);
    expect(await checksumBuild(h.db.pool, swaps, result.build.schemaName)).toEqual(before);
    // What the replay deferred was written with each table's keys and indexes as the DDL declares them.
    const DDL = 'shape_of_swaps_ddl';
    await createBuildTables(h.db.pool, swaps.schema, DDL);
    const declared = await buildShape(h.db.pool, DDL);
    await h.db.pool.query(`DROP SCHEMA ${DDL} CASCADE`);
    expect(declared.constraints).toContainEqual(expect.stringMatching(/^swaps swaps_pkey p PRIMARY KEY \(cluster, pool, ts, id\)$/));
    expect(await buildShape(h.db.pool, result.build.schemaName)).toEqual(declared);
    const { rows } = await h.db.pool.query(`SELECT pg_get_viewdef('read.swaps'::regclass) AS def`);
    expect(rows[0].def).toContain(result.build.schemaName);

    // The running projector follows the switch: new events land in the new build.
    await until('runner follows the new build', async () => (await runner.lag()).projections.some((p) => p.buildId === result.build.buildId));
    const more = [...generateEvents({ events: 6300, poolsPerCluster: 4, seed: 11 })].slice(6000);
    await h.append(more);
    await caughtUp(runner);
    expect(await count('swaps')).toBe(swapCount(events) + swapCount(more));

    // Another replay drops the retired build beyond keepRetiredBuilds.
    const again = await rebuildProjection(swaps, { pool: h.db.pool, consumerFactory, log, keepRetiredBuilds: 0 });
    expect(again.dropped.map((b) => b.schemaName).sort()).toEqual([served.schemaName, result.build.schemaName].sort());
    const schemas = (await h.db.pool.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'proj_swaps_%'`)).rows.map((r) => r.nspname);
    expect(schemas).toEqual([again.build.schemaName]);
    await until('runner follows again', async () => (await runner.lag()).projections.some((p) => p.buildId === again.build.buildId));
  });

  it('resumes the active build and its consumer group after a restart', async () => {
    const activeBefore = (await h.registry.list()).filter((b) => b.status === 'active').map((b) => b.consumerGroup);
    const first = await startRunner();
    await caughtUp(first);
    await first.stop();
    const total = await count('midprice_points');
    const later = [...generateEvents({ events: 6600, poolsPerCluster: 4, seed: 11 })].slice(6300);
    await h.append(later);
    const second = await startRunner();
    await caughtUp(second);
    expect((await h.registry.list()).filter((b) => b.status === 'active').map((b) => b.consumerGroup)).toEqual(activeBefore);
    // Points are the updates that set the midprice (midprice v2).
    expect(await count('midprice_points')).toBe(total + later.filter((e) => e.type === 'MidpriceUpdated' && e.data.instruction !== 'UpdateBaseSpread').length);
  });

  it('dead-letters an event no projection can apply in every group whose projection reads its type, and applies the rest', async () => {
    const [good, bad] = [...generateEvents({ events: 20_000, poolsPerCluster: 1, seed: 99 })].filter((e) => e.type === 'SwapExecuted').slice(0, 2);
    const poison = {
      ...bad,
      id: `${bad.id}:poison`,
      data: { ...(bad as Extract<HadronEvent, { type: 'SwapExecuted' }>).data, amountInToVault: '1' },
    } as HadronEvent;
    const runner = await startRunner();
    await h.append([good, poison]);
    await caughtUp(runner);
    const { rows } = await h.db.pool.query(`SELECT group_id, reason FROM event_dead_letter WHERE event_id = $1 ORDER BY group_id`, [poison.id]);
    const active = (await h.registry.list()).filter((b) => b.status === 'active');
    // pools reads every type, swaps reads swaps; midprice skips SwapExecuted records unparsed, so never sees it.
    const readers = active
      .filter((b) => b.projection !== 'midprice')
      .map((b) => b.consumerGroup)
      .sort();
    expect(rows.map((r) => r.group_id)).toEqual(readers);
    expect((await runner.lag()).projections.find((p) => p.projection === 'midprice')).toMatchObject({ status: 'active', lag: 0n, stalled: false });
    for (const r of rows) expect(r.reason).toContain(`projection failed: event ${poison.id}: amounts are inconsistent`);
    expect((await h.db.pool.query('SELECT count(*)::int AS n FROM read.swaps WHERE id = $1', [good.id])).rows[0].n).toBe(1);
  });
  it.each([
    ['read.swaps', 'a view the switch used to take before the one the reader holds (deadlock)'],
    ['read.fee_recipient_hourly', 'a view the switch takes first (it gives way and retries)'],
  ])('switches while a reader holding read.fee_rollup_hourly then reads %s (%s): no reader fails, the switch completes', async (second) => {
    const swaps = projectionByName('swaps');
    const build = await h.registry.create(swaps);
    const reader = await h.db.pool.connect();
    try {
      const readerPid = (await reader.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM read.fee_rollup_hourly');
      const switching = h.registry.activate(swaps, build);
      switching.catch(() => undefined);
      // The switch is now queued behind the reader's view (it may give way and queue again). It
      // waits for the view, or for a table under it: locking a view locks the relations its query
      // reads (a view derived from the build's swaps, such as v3's fee rollups, locks the swaps).
      await until(
        "the switch waiting for the reader's view",
        async () => {
          const { rows } = await h.db.pool.query(
            `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
              WHERE NOT l.granted AND l.pid <> $1 AND (c.oid = 'read.fee_rollup_hourly'::regclass OR c.oid IN (
                    SELECT d.relation FROM pg_locks d WHERE d.pid = $1 AND d.granted AND d.relation IS NOT NULL))`,
            [readerPid],
          );
          return rows.length > 0;
        },
        30_000,
        5,
      );
      await expect(reader.query(`SELECT count(*) FROM ${second}`)).resolves.toBeDefined();
      await reader.query('COMMIT');
      await expect(switching).resolves.toBeDefined();
      expect((await h.registry.active('swaps'))?.buildId).toBe(build.buildId);
    } finally {
      reader.release();
    }
  });

  it('rebuilds in place when the code has a newer version of a projection, serving the old build until the switch', async () => {
    const midprice = projectionByName('midprice');
    const next = midprice.schema.version + 1;
    const newer: ProjectionDefinition = { ...midprice, schema: { ...midprice.schema, version: next }, previousVersions: [midprice] };
    const old = (await h.registry.active('midprice'))!;
    const expected = await checksumBuild(h.db.pool, midprice, old.schemaName);
    const runner = await startRunner([projectionByName('pools'), projectionByName('swaps'), newer]);
    const active = await until('the newer version active', async () => {
      const a = await h.registry.active('midprice');
      return a && a.version === next ? a : undefined;
    });
    expect(active.consumerGroup).toMatch(new RegExp(`^midprice\\.v${next}\\.b`));
    await caughtUp(runner);
    expect(await checksumBuild(h.db.pool, midprice, active.schemaName)).toEqual(expected);
    await until('the old build dropped', () => noneRetired(h.registry, 'midprice'));
    expect((await h.registry.list('midprice')).filter((b) => b.status !== 'dropped').map((b) => b.version)).toEqual([next]);
  });
});
