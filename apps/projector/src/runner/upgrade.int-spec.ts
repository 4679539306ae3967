import type { HadronEvent } from '@hadron/contracts';
import { q32Json } from '@hadron/contracts/read/midprice-sample-json';
import { eventLogMigrations, PostgresEventLogConsumer, PostgresEventLogProducer } from '@hadron/platform';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { addr, midpriceUpdated, MID_1_5, poolConfigChanged, poolDiscovered, Q, swapExecuted } from '../../test-support/events';
import { testLog as log, noneRetired, until, useRunnerHarness } from '../../test-support/runner-harness';
import { BuildRegistry } from '../builds/build-registry';
import { projectorMigrations } from '../migrations';
import type { ProjectionDefinition } from '../projection';
import { midpriceProjectionV1 } from '../projections/midprice/midprice-v1.projection';
import { midpriceProjection, midpriceProjectionV7, midpriceProjectionV8 } from '../projections/midprice/midprice.projection';
import { quoteIdent } from '../sql/identifiers';
import { poolsProjection } from '../projections/pools/pools.projection';
import { swapsProjection, swapsProjectionV1, swapsProjectionV2 } from '../projections/swaps/swaps.projection';
import { ProjectorRunner } from './projector-runner';

const T = 1_763_798_400;
const S2 = Q - 2000n;
const S_NOW = Q - 9000n;
const MID_NOW = 9n * Q;

/** A definition whose handler waits for `open` before each batch: holds a rebuild at a known point. */
function gated(def: ProjectionDefinition, gate: { open: Promise<void> }): ProjectionDefinition {
  const wait = (inner: BatchHandler): BatchHandler => {
    return async (events, tx) => {
      await gate.open;
      await inner(events, tx);
    };
  };
  const building = def.createBuildingHandler;
  return {
    ...def,
    createHandler: (schema) => wait(def.createHandler(schema)),
    // A replay's batches (of a `building` build) go to this one when the projection has it.
    ...(building ? { createBuildingHandler: (schema: string) => wait(building(schema)) } : {}),
  };
}

/** Every midprice build the registry knows, as [version, status], by version. */
const midpriceBuilds = async (registry: BuildRegistry) =>
  (await registry.list())
    .filter((b) => b.projection === 'midprice')
    .map((b) => [b.version, b.status])
    .sort();

/** The code's versions: what an in-place upgrade ends on. */
const TARGET: Record<string, number> = { swaps: swapsProjection.schema.version, midprice: midpriceProjection.schema.version };

describe('upgrading projections in place (midprice v1 → v4, swaps v1 → v3)', () => {
  const h = useRunnerHarness({ registryPollMs: 100, maxBatchSize: 50, idlePollMs: 100 });
  const start = h.startRunner;
  const append = h.append;
  const points = async (pool: string) =>
    (await h.db.pool.query('SELECT slot::int, instruction, midprice_q32, spread_factor_q32 FROM read.midprice_points WHERE pool = $1 ORDER BY slot', [pool]))
      .rows;

  const P = addr('upgrade:pool');
  const R1 = addr('upgrade:recipient');
  // A backfill as the indexer publishes it: the pool (oracle read at slot 100) before its history.
  const history: HadronEvent[] = [
    poolDiscovered({ pool: P, slot: 100 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S_NOW.toString() }),
    midpriceUpdated({ pool: P, slot: 10, blockTime: T + 10 }, null, S2), // tag 9
    midpriceUpdated({ pool: P, slot: 11, blockTime: T + 11 }, 2n * Q, null), // tag 5, no After fields
    swapExecuted(
      { pool: P, slot: 12, blockTime: T + 12 },
      { side: 'buy', amountIn: 1000n, fee: 10n, amountOut: 600n, mid: MID_1_5, split: [{ recipient: R1, ppm: 1_000_000 }] },
    ),
  ];

  it('v1 (released) gave historical points the snapshot’s later values', async () => {
    const v1 = await start([poolsProjection, swapsProjectionV1, midpriceProjectionV1]);
    await append(history);
    await until('v1 caught up', async () => (await v1.lag()).total === 0n && (await points(P)).length === 2);
    expect(await points(P)).toEqual([
      { slot: 10, instruction: 'UpdateBaseSpread', midprice_q32: MID_NOW.toString(), spread_factor_q32: S2.toString() }, // the bug: a point, with the later midprice
      { slot: 11, instruction: 'UpdateMidprice', midprice_q32: (2n * Q).toString(), spread_factor_q32: S_NOW.toString() }, // and the later spread
    ]);
  });

  it('the new code replays the new versions beside v1, v1 keeps consuming (served data stays fresh), then the views switch', async () => {
    let openGate!: () => void;
    const gate = { open: new Promise<void>((r) => (openGate = r)) };
    const runner = await start([poolsProjection, gated(swapsProjection, gate), gated(midpriceProjection, gate)]);
    await until('new builds replaying', async () => {
      const lag = await runner.lag();
      return ['swaps', 'midprice'].every((p) => lag.projections.some((l) => l.projection === p && l.status === 'building' && l.version === TARGET[p]));
    });
    expect((await h.registry.active('midprice'))!.version).toBe(1);

    // While the new versions are held, new events still reach readers through the v1 builds.
    const live = [
      midpriceUpdated({ pool: P, slot: 200, blockTime: T + 200 }, 3n * Q, null),
      swapExecuted({ pool: P, slot: 201, blockTime: T + 201 }, { side: 'buy', amountIn: 500n, fee: 5n, amountOut: 300n, mid: MID_1_5, split: null }),
    ];
    await append(live);
    await until(
      'v1 builds applied the live events',
      async () =>
        (await points(P)).some((p) => p.slot === 200) &&
        Number((await h.db.pool.query('SELECT count(*) AS n FROM read.swaps WHERE pool = $1', [P])).rows[0].n) === 2,
    );
    // v1 serves midprice v3's five-minute view derived from its minutes (migration 1764300000000),
    // v4's sample tail (1764500000000) and v5's sample JSON (1764600000000) derived from its rows.
    const fiveMinute = async () =>
      (
        await h.db.pool.query<{
          start: number;
          slot: number;
          midprice_q32: string;
          spread_factor_q32: string | null;
          signature: string | null;
          tail: string;
          sample_json: string;
        }>(
          'SELECT five_minute_start::int AS start, slot::int, midprice_q32, spread_factor_q32, signature, tail, sample_json FROM read.midprice_five_minute WHERE pool = $1 ORDER BY 1',
          [P],
        )
      ).rows.map((r) => ({
        start: r.start,
        slot: r.slot,
        tailAsWritten: r.tail === `${r.slot} ${r.midprice_q32} ${r.spread_factor_q32 ?? ''} ${JSON.stringify(r.signature)}`,
        sampleJsonAsWritten:
          `{"timestamp":${r.start}${r.sample_json}` ===
          JSON.stringify({
            timestamp: r.start,
            slot: r.slot,
            midprice: Number(r.midprice_q32) / 2 ** 32,
            base_spread_factor: r.spread_factor_q32 === null ? null : Number(r.spread_factor_q32) / 2 ** 32,
            signature: r.signature,
          }),
      }));
    expect(await fiveMinute()).toEqual([{ start: T, slot: 200, tailAsWritten: true, sampleJsonAsWritten: true }]);
    expect(
      (await runner.lag()).projections
        .filter((l) => l.status === 'active')
        .map((l) => [l.projection, l.version])
        .sort(),
    ).toEqual([
      ['midprice', 1],
      ['pools', 1],
      ['swaps', 1],
    ]);

    openGate();
    await until(
      'new versions active',
      async () => (await h.registry.active('midprice'))?.version === TARGET.midprice && (await h.registry.active('swaps'))?.version === TARGET.swaps,
    );
    await until('new versions caught up and the v1 builds dropped', async () => (await runner.lag()).total === 0n && (await noneRetired(h.registry)));
    expect(await points(P)).toEqual([
      { slot: 11, instruction: 'UpdateMidprice', midprice_q32: (2n * Q).toString(), spread_factor_q32: S2.toString() }, // from the tag-9 before it
      { slot: 200, instruction: 'UpdateMidprice', midprice_q32: (3n * Q).toString(), spread_factor_q32: S_NOW.toString() }, // the snapshot (100) is before it
    ]);
    expect(await fiveMinute()).toEqual([{ start: T, slot: 200, tailAsWritten: true, sampleJsonAsWritten: true }]); // now v5's own table
    const minute = await h.db.pool.query('SELECT minute_start::int, recipient, fee_y_raw_x1e6 FROM read.fee_recipient_minute WHERE pool = $1', [P]);
    expect(minute.rows).toEqual([{ minute_start: T, recipient: R1, fee_y_raw_x1e6: '10000000' }]);
    // The v1 builds are retired and dropped; their schemas are gone.
    expect(
      (await h.registry.list())
        .filter((b) => b.projection !== 'pools')
        .map((b) => [b.projection, b.version, b.status])
        .sort(),
    ).toEqual([
      ['midprice', 1, 'dropped'],
      ['midprice', TARGET.midprice, 'active'],
      ['swaps', 1, 'dropped'],
      ['swaps', 3, 'active'],
    ]);
    expect(
      (await h.db.pool.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname IN ('proj_swaps_v1_initial', 'proj_midprice_v1_initial')`)).rows[0].n,
    ).toBe(0);
  });

  it('runs the 24 h refresh in one instance only; a standby takes over when it stops', async () => {
    const windowEnd = async () => (await h.db.pool.query<{ w: string | null }>('SELECT max(stats_24h_window_end)::text AS w FROM read.pools')).rows[0].w;
    const first = await start([poolsProjection], () => T + 1000);
    const second = await start([poolsProjection], () => T + 2000);
    await until('both serving', async () => (await first.lag()).projections.length === 1 && (await second.lag()).projections.length === 1);
    await first.refresh(poolsProjection);
    await second.refresh(poolsProjection); // the standby: must not refresh (its later clock would win)
    expect(await windowEnd()).toBe(String(T + 1000));
    await first.stop();
    await second.refresh(poolsProjection);
    expect(await windowEnd()).toBe(String(T + 2000));
  });
});

describe('swaps v2 → v3 in place: fees from running totals before, during and after the upgrade', () => {
  const h = useRunnerHarness({ registryPollMs: 100, maxBatchSize: 50, idlePollMs: 100 });
  const P = addr('upgrade3:pool');
  const R1 = addr('upgrade3:r1');
  const R2 = addr('upgrade3:r2');
  const swap = (slot: number, at: number, fee: bigint, split: Array<{ recipient: string; ppm: number }> | null) =>
    swapExecuted({ pool: P, slot, blockTime: at }, { side: 'buy', amountIn: 1000n * fee, fee, amountOut: 600n * fee, mid: MID_1_5, split });
  const split = [
    { recipient: R1, ppm: 700_000 },
    { recipient: R2, ppm: 300_000 },
  ];

  /** The pool's totals and recipient shares through X (exclusive) from the running views, as the API reads them. */
  const through = async (x: number) => {
    const day = x - (x % 86_400);
    const at = async (view: string, key: string, cols: string) =>
      (
        await h.db.pool.query(
          `SELECT (SELECT ${cols} FROM read.${view}_day WHERE ${key} AND day_start < $2 ORDER BY day_start DESC LIMIT 1) AS d,
                  (SELECT ${cols} FROM read.${view}_second WHERE ${key} AND ts >= $2 AND ts < $3 ORDER BY ts DESC LIMIT 1) AS s`,
          [P, day, x],
        )
      ).rows[0];
    const sum = (r: { d: string | null; s: string | null }) => BigInt(r.d ?? 0) + BigInt(r.s ?? 0);
    return {
      fee: sum(await at('fee_running', 'pool = $1', 'run_fee_y_raw')),
      swaps: sum(await at('fee_running', 'pool = $1', 'run_swap_count')),
      r1: sum(await at('fee_recipient_running', `pool = $1 AND recipient = '${R1}'`, 'run_fee_y_raw_x1e6')),
    };
  };
  /** The same from the facts. */
  const bruteForce = async (x: number) => {
    const t = (await h.db.pool.query('SELECT coalesce(sum(fee_y_raw), 0) AS f, count(*) AS n FROM read.swaps WHERE pool = $1 AND ts < $2', [P, x])).rows[0];
    const r = (
      await h.db.pool.query('SELECT coalesce(sum(fee_y_raw_x1e6), 0) AS y FROM read.swap_fee_splits WHERE pool = $1 AND recipient = $2 AND ts < $3', [P, R1, x])
    ).rows[0];
    return { fee: BigInt(t.f), swaps: BigInt(t.n), r1: BigInt(r.y) };
  };
  const POINTS = [T, T + 50, T + 86_400, T + 86_400 + 7, T + 3 * 86_400];
  const expectExact = async () => {
    for (const x of POINTS) expect({ x, ...(await through(x)) }).toEqual({ x, ...(await bruteForce(x)) });
  };

  it('serves derived running views from v2, keeps them fresh while v3 replays, then switches to v3 tables with the same answers', async () => {
    const v2 = await h.startRunner([poolsProjection, swapsProjectionV2, midpriceProjection]);
    await h.append([swap(10, T + 5, 10n, split), swap(11, T + 40, 20n, null), swap(12, T + 86_400 + 3, 30n, split), swap(13, T + 86_400 + 3, 40n, split)]);
    await until('v2 caught up', async () => (await h.registry.active('swaps'))?.version === 2 && (await v2.lag()).total === 0n);
    const relkind = async (name: string) =>
      (await h.db.pool.query(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [`read.${name}`])).rows[0]?.relkind;
    expect(await relkind('fee_running_second')).toBe('v');
    expect(await through(T + 3 * 86_400)).toEqual({ fee: 100n, swaps: 4n, r1: 80n * 700_000n });
    await expectExact();
    await v2.stop();

    let openGate!: () => void;
    const gate = { open: new Promise<void>((r) => (openGate = r)) };
    const v3 = await h.startRunner([poolsProjection, gated(swapsProjection, gate), midpriceProjection]);
    await until('v3 replaying beside v2', async () =>
      (await v3.lag()).projections.some((l) => l.projection === 'swaps' && l.status === 'building' && l.version === 3),
    );
    // A late swap (a day before the others) and a live one: v2 applies both, the derived views show them.
    await h.append([swap(5, T + 1, 50n, split), swap(20, T + 2 * 86_400, 60n, null)]);
    await until('v2 applied them', async () => (await through(T + 3 * 86_400)).swaps === 6n);
    await expectExact();

    openGate();
    await until('v3 active and caught up', async () => (await h.registry.active('swaps'))?.version === 3 && (await v3.lag()).total === 0n);
    expect(await relkind('fee_running_second')).toBe('v'); // a view of v3's table now
    expect(
      (
        await h.db.pool.query(
          `SELECT count(*)::int AS n FROM information_schema.view_table_usage WHERE view_schema = 'read' AND view_name = 'fee_running_second' AND table_name = 'fee_running_second'`,
        )
      ).rows[0].n,
    ).toBe(1);
    expect(await through(T + 3 * 86_400)).toEqual({ fee: 210n, swaps: 6n, r1: 130n * 700_000n });
    await expectExact();
  });
});

describe('midprice v7 → v8 and on in place: the replay rewrites the points a copy left with a wrong spread', () => {
  const h = useRunnerHarness({ registryPollMs: 100, maxBatchSize: 50, idlePollMs: 100 });
  const P = addr('upgrade8:pool');
  const S3 = Q - 3000n;
  const snapshot = poolConfigChanged({ pool: P, slot: 20 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S3.toString() });
  const u = midpriceUpdated({ pool: P, slot: 30, blockTime: T + 30 }, null, S2); // tag 9: S2 from slot 30
  const p = midpriceUpdated({ pool: P, slot: 40, blockTime: T + 40 }, 2n * Q, null); // tag 5 without After: S2
  const next = midpriceUpdated({ pool: P, slot: 50, blockTime: T + 50 }, 3n * Q, null); // the same
  const spreads = async () => ({
    points: (await h.db.pool.query('SELECT slot::int, spread_factor_q32 AS s FROM read.midprice_points WHERE pool = $1 ORDER BY slot', [P])).rows,
    minute: (await h.db.pool.query('SELECT slot::int, spread_factor_q32 AS s FROM read.midprice_minute WHERE pool = $1', [P])).rows,
  });

  it('the upgrade replays the current version from the log, which serves every point right, and retires v7', async () => {
    // The released v7 (no v8 in its code): its build becomes active and applies the pool's history.
    const v7 = await h.startRunner([poolsProjection, swapsProjection, { ...midpriceProjectionV7, previousVersions: [midpriceProjectionV1] }]);
    await h.append([snapshot, u, p, next]);
    await until('v7 caught up', async () => (await h.registry.active('midprice'))?.version === 7 && (await v7.lag()).total === 0n);
    await v7.stop();
    // What v7's code before the fix left when a copy of `p` came in a later batch (the copy is
    // not in this log: the Postgres log keeps one record per id): `next` took the snapshot's S3.
    const v7Schema = quoteIdent((await h.registry.active('midprice'))!.schemaName);
    await h.db.pool.query(`UPDATE ${v7Schema}.midprice_points SET spread_factor_q32 = $2, spread_factor_json = $3 WHERE id = $1`, [
      next.id,
      S3.toString(),
      q32Json(S3.toString()),
    ]);
    for (const t of ['midprice_minute', 'midprice_five_minute', 'midprice_hourly'])
      await h.db.pool.query(`UPDATE ${v7Schema}.${t} SET spread_factor_q32 = $2 WHERE point_id = $1`, [next.id, S3.toString()]);
    expect(await spreads()).toEqual({
      points: [
        { slot: 40, s: S2.toString() },
        { slot: 50, s: S3.toString() },
      ],
      minute: [{ slot: 50, s: S3.toString() }],
    });

    const current = await h.startRunner([poolsProjection, swapsProjection, midpriceProjection]);
    await until(
      'the current version active and caught up, v7 dropped',
      async () => (await h.registry.active('midprice'))?.version === TARGET.midprice && (await current.lag()).total === 0n && (await noneRetired(h.registry)),
    );
    expect(await spreads()).toEqual({
      points: [
        { slot: 40, s: S2.toString() },
        { slot: 50, s: S2.toString() },
      ],
      minute: [{ slot: 50, s: S2.toString() }],
    });
    expect(await midpriceBuilds(h.registry)).toEqual([
      [1, 'dropped'],
      [7, 'dropped'],
      [TARGET.midprice, 'active'],
    ]);
  });
});

describe('midprice v8 → v9 in place: the points keyed by the raw page', () => {
  const h = useRunnerHarness({ registryPollMs: 100, maxBatchSize: 50, idlePollMs: 100 });
  const P = addr('upgrade9:pool');
  const Other = addr('upgrade9:other');
  // Two pools' updates interleaved in time, several in one second and one slot, as a live log has them.
  const history: HadronEvent[] = [
    poolConfigChanged({ pool: P, slot: 20 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S_NOW.toString() }),
    ...[0, 1, 2, 3, 4, 5].flatMap((i) => [
      midpriceUpdated({ pool: P, slot: 30 + i, blockTime: T + 30 + (i >> 1) }, BigInt(i + 2) * Q, S2),
      midpriceUpdated({ pool: Other, slot: 30 + i, blockTime: T + 30 + (i >> 1) }, BigInt(i + 7) * Q, null),
    ]),
  ];
  /** What the API's raw history reads: every point's sample JSON, newest first, as `read.midprice_points` serves it. */
  const rawPage = async (pool: string) =>
    (
      await h.db.pool.query(
        `SELECT ts::int, '{"timestamp":' || ts::text || sample_json AS item FROM read.midprice_points WHERE cluster = 'mainnet-beta' AND pool = $1
          ORDER BY ts DESC, slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, id DESC`,
        [pool],
      )
    ).rows;
  const primaryKey = async () => {
    const table = `${quoteIdent((await h.registry.active('midprice'))!.schemaName)}.midprice_points`;
    return (
      await h.db.pool.query<{ def: string }>(`SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indisprimary AND i.indrelid = $1::regclass`, [
        table,
      ])
    ).rows[0].def;
  };

  it('replays v9, which serves the same raw pages from a key holding them, and retires v8', async () => {
    const v8 = await h.startRunner([poolsProjection, swapsProjection, { ...midpriceProjectionV8, previousVersions: [midpriceProjectionV1] }]);
    await h.append(history);
    await until('v8 caught up', async () => (await h.registry.active('midprice'))?.version === 8 && (await v8.lag()).total === 0n);
    await v8.stop();
    const before = { p: await rawPage(P), other: await rawPage(Other) };
    expect(before.p).toHaveLength(6);
    expect(await primaryKey()).toMatch(/\(cluster, pool, ts, id\)$/);

    const v9 = await h.startRunner([poolsProjection, swapsProjection, midpriceProjection]);
    await until(
      'v9 active and caught up, v8 dropped',
      async () => (await h.registry.active('midprice'))?.version === 9 && (await v9.lag()).total === 0n && (await noneRetired(h.registry)),
    );
    expect({ p: await rawPage(P), other: await rawPage(Other) }).toEqual(before);
    expect(await primaryKey()).toMatch(
      /\(cluster, pool, ts, slot, tx_index, ix_index, inner_index, id\) INCLUDE \(signature, midprice_json, spread_factor_json\)$/,
    );
    expect(await midpriceBuilds(h.registry)).toEqual([
      [1, 'dropped'],
      [8, 'dropped'],
      [9, 'active'],
    ]);
  });
});

describe('a fresh install (the migration’s initial v1 builds have applied nothing)', () => {
  let db: TestDatabase;
  let runner: ProjectorRunner | undefined;
  let openGate = () => {};
  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
  });
  afterAll(async () => {
    openGate(); // a failed assertion must not leave a batch waiting forever
    await runner?.stop();
    await db.drop();
  });

  it('activates the code’s versions at once, so readers never see v1 semantics, even while the log is ahead', async () => {
    const registry = new BuildRegistry(db.pool);
    const P = addr('fresh:pool');
    // The indexer ran first: the log already holds a backfill when the projector starts.
    await new PostgresEventLogProducer(db.pool).append([
      poolDiscovered({ pool: P, slot: 100 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S_NOW.toString() }),
      midpriceUpdated({ pool: P, slot: 10, blockTime: T + 10 }, null, S2), // tag 9: a point in v1, none in v2
      midpriceUpdated({ pool: P, slot: 11, blockTime: T + 11 }, 2n * Q, null),
    ]);
    const gate = { open: new Promise<void>((r) => (openGate = r)) };
    runner = new ProjectorRunner({
      pool: db.pool,
      log,
      projections: [poolsProjection, swapsProjection, gated(midpriceProjection, gate)],
      registryPollMs: 100,
      maxBatchSize: 50,
    });
    await runner.start(() => new PostgresEventLogConsumer(db.pool, db.url, log, 100));

    // Before the new versions have applied a single event, they already are what readers see.
    expect((await registry.active('midprice'))!.version).toBe(TARGET.midprice);
    expect((await registry.active('swaps'))!.version).toBe(TARGET.swaps);
    expect((await registry.list()).filter((b) => b.version === 1 && b.projection !== 'pools').map((b) => b.status)).toEqual(['dropped', 'dropped']);
    expect((await runner.lag()).projections.every((l) => l.status === 'active')).toBe(true);

    openGate();
    await until('caught up', async () => (await runner!.lag()).total === 0n);
    const points = await db.pool.query('SELECT slot::int, instruction FROM read.midprice_points WHERE pool = $1 ORDER BY slot', [P]);
    expect(points.rows).toEqual([{ slot: 11, instruction: 'UpdateMidprice' }]);
  });
});
