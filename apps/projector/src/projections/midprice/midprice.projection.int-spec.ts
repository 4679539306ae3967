import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import type { Pool } from 'pg';
import { addr, applyBatch, dump, midpriceUpdated, poolConfigChanged, poolDiscovered, Q, swapExecuted } from '../../../test-support/events';
import { generateEvents, mulberry32 } from '../../../test-support/event-generator';
import { createServedBuild } from '../../../test-support/served-build';
import { createBuildTables } from '../../builds/build-objects';
import { projectorMigrations } from '../../migrations';
import { quoteIdent } from '../../sql/identifiers';
import {
  createMidpriceBuildingHandler,
  createMidpriceHandler,
  createMidpriceHandlerV2,
  createMidpriceHandlerV5,
  createMidpriceHandlerV6,
  finishMidpriceBuild,
} from './midprice.projection';
import { midpriceSchemaV2, midpriceSchemaV5, midpriceSchemaV6, midpriceSchemaV7, olderBuildViews } from './midprice.schema';

const T = 1_763_798_400; // a minute and hour start
const S1 = Q - 1000n;
const S2 = Q - 2000n;
const S3 = Q - 3000n;
/** The oracle as a backfill's PoolDiscovered reads it: at the backfill's target slot, the end of the history. */
const S_NOW = Q - 9000n;
const MID_NOW = 9n * Q;
const SCHEMA = 'proj_midprice_v7_test';
/** A v2 build fed the same batches (not served): its derived five-minute view, hour items and point JSON must equal v7's tables. */
const V2_SCHEMA = 'proj_midprice_v2_beside';
/** A v5 build fed the same batches (not served): its derived hour items and point JSON must equal v7's. */
const V5_SCHEMA = 'proj_midprice_v5_beside';
/** A v6 build fed the same batches (not served, the previous release): its derived point JSON must equal v7's. */
const V6_SCHEMA = 'proj_midprice_v6_beside';
/** A v7 build replaying the same batches (`building`: points and state, the last points at its finish): it must end equal to the served one. */
const REPLAY_SCHEMA = 'proj_midprice_v7_replay';
const TABLES = ['midprice_points', 'midprice_state', 'midprice_minute', 'midprice_five_minute', 'midprice_hourly'];

/**
 * Runs the finish of the replaying build `replay` (in a transaction, as the registry does), then
 * expects every table of it to hold the same rows as the live build's.
 */
async function expectFinishedReplayEqual(pool: Pool, live: string, replay: string): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await finishMidpriceBuild(c, quoteIdent(replay));
    await c.query('COMMIT');
  } finally {
    c.release();
  }
  for (const table of TABLES) {
    const [expected, replayed] = [await dump(pool, `${quoteIdent(live)}.${table}`, 't'), await dump(pool, `${quoteIdent(replay)}.${table}`, 't')];
    expect(expected.length).toBeGreaterThan(5);
    // Counted and compared apart: a diff of thousands of rows would say less than which table differs.
    expect({ table, rows: replayed.length, same: replayed.every((r, i) => r === expected[i]) }).toEqual({ table, rows: expected.length, same: true });
  }
}

describe('midprice projection v7 (v2 points, the last point of every 5 minutes, the sample tail and JSON, the hour items, the point JSON)', () => {
  let db: TestDatabase;
  const handler = createMidpriceHandler(quoteIdent(SCHEMA));
  const handlerV2 = createMidpriceHandlerV2(quoteIdent(V2_SCHEMA));
  const handlerV5 = createMidpriceHandlerV5(quoteIdent(V5_SCHEMA));
  const handlerV6 = createMidpriceHandlerV6(quoteIdent(V6_SCHEMA));
  const replay = createMidpriceBuildingHandler(quoteIdent(REPLAY_SCHEMA));
  /**
   * Each batch to the v7 build (served), to the replaying v7 build, which must take or refuse it
   * alike, and to the v2, v5 and v6 builds beside them, only when v7 took it.
   */
  const apply = async (events: Parameters<typeof applyBatch>[2]) => {
    const outcome = (h: typeof handler) =>
      applyBatch(db.pool, h, events).then(
        () => null,
        (e: Error) => e,
      );
    const [live, replayed] = [await outcome(handler), await outcome(replay)];
    expect(replayed?.message).toEqual(live?.message);
    if (live) throw live;
    await applyBatch(db.pool, handlerV2, events);
    await applyBatch(db.pool, handlerV5, events);
    await applyBatch(db.pool, handlerV6, events);
  };
  const points = async (pool: string, cluster = 'mainnet-beta') =>
    (
      await db.pool.query(
        'SELECT ts, slot, signature, midprice_q32, spread_factor_q32, instruction FROM read.midprice_points WHERE cluster = $1 AND pool = $2 ORDER BY slot',
        [cluster, pool],
      )
    ).rows;
  const point = (ts: number, slot: number, signature: string | null, mid: bigint, spread: bigint | null, instruction: string) => ({
    ts: String(ts),
    slot: String(slot),
    signature,
    midprice_q32: mid.toString(),
    spread_factor_q32: spread === null ? null : spread.toString(),
    instruction,
  });

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    await createServedBuild(db.pool, midpriceSchemaV2, V2_SCHEMA);
    await createBuildTables(db.pool, midpriceSchemaV5, V5_SCHEMA);
    await createBuildTables(db.pool, midpriceSchemaV6, V6_SCHEMA);
    await createBuildTables(db.pool, midpriceSchemaV7, REPLAY_SCHEMA);
    await createServedBuild(db.pool, midpriceSchemaV7, SCHEMA); // last: the read views point at v7
  });
  afterAll(() => db.drop());

  describe('a backfill: PoolDiscovered (read at the end) published before the history', () => {
    const P = addr('mid2:backfill');
    const discovered = poolDiscovered({ pool: P, slot: 100 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S_NOW.toString() });
    const u1 = midpriceUpdated({ pool: P, slot: 10, blockTime: T + 1 }, null, S2); // tag 9: no point, spread S2 from slot 10
    const u2 = midpriceUpdated({ pool: P, slot: 11, blockTime: T + 2 }, 2n * Q, null); // tag 5, no After fields (old decoder)
    const u3 = midpriceUpdated({ pool: P, slot: 12, blockTime: T + 3 }, 3n * Q, S1); // tag 10
    const u4 = midpriceUpdated({ pool: P, slot: 13, blockTime: T + 4 }, 4n * Q, null, 13, { mid: 4n * Q, spread: S3 }); // tag 5 + After: S3
    const u5 = midpriceUpdated({ pool: P, slot: 14, blockTime: T + 59 }, 5n * Q, null, 14, { mid: 5n * Q, spread: null }); // After unknown
    const u6 = midpriceUpdated({ pool: P, slot: 20, blockTime: T + 61 }, null, S1); // tag 9, next minute: no point, no last point
    const live = midpriceUpdated({ pool: P, slot: 150, blockTime: T + 3700 }, 6n * Q, null); // after the snapshot

    beforeAll(async () => {
      await apply([discovered, u1, u2]);
      await apply([u3, u4, u5, u6]);
      await apply([live]);
    });

    it('makes a point of every update that set the midprice and none of spread-only updates', async () => {
      expect((await points(P)).map((p) => p.slot)).toEqual(['11', '12', '13', '14', '150']);
    });

    it('gives each point the spread in effect at its position: its own, the After value, or carried from before it, never from the later snapshot', async () => {
      expect(await points(P)).toEqual([
        point(T + 2, 11, u2.signature, 2n * Q, S2, 'UpdateMidprice'), // carried from u1 (slot 10), not the snapshot's S_NOW (slot 100)
        point(T + 3, 12, u3.signature, 3n * Q, S1, 'UpdateMidpriceAndBaseSpread'),
        point(T + 4, 13, u4.signature, 4n * Q, S3, 'UpdateMidprice'), // spreadFactorAfterQ32
        point(T + 59, 14, u5.signature, 5n * Q, S3, 'UpdateMidprice'), // After unknown: carried from u4
        point(T + 3700, 150, live.signature, 6n * Q, S_NOW, 'UpdateMidprice'), // the snapshot (slot 100) is now before it; u6 (slot 20) older
      ]);
    });

    it('keeps the last point of each minute and hour among midprice updates only', async () => {
      const minute = await db.pool.query(
        'SELECT minute_start, slot, point_id, midprice_q32, spread_factor_q32 FROM read.midprice_minute WHERE pool = $1 ORDER BY minute_start',
        [P],
      );
      expect(minute.rows).toEqual([
        { minute_start: String(T), slot: '14', point_id: u5.id, midprice_q32: (5n * Q).toString(), spread_factor_q32: S3.toString() },
        // no row for minute T+60: its only update (u6) set the spread alone
        { minute_start: String(T + 3660), slot: '150', point_id: live.id, midprice_q32: (6n * Q).toString(), spread_factor_q32: S_NOW.toString() },
      ]);
      const hourly = await db.pool.query('SELECT hour_start, slot FROM read.midprice_hourly WHERE pool = $1 ORDER BY hour_start', [P]);
      expect(hourly.rows).toEqual([
        { hour_start: String(T), slot: '14' },
        { hour_start: String(T + 3600), slot: '150' },
      ]);
      const fiveMinute = await db.pool.query(
        'SELECT five_minute_start, ts, slot, point_id, midprice, spread_factor_q32 FROM read.midprice_five_minute WHERE pool = $1 ORDER BY five_minute_start',
        [P],
      );
      expect(fiveMinute.rows).toEqual([
        { five_minute_start: String(T), ts: String(T + 59), slot: '14', point_id: u5.id, midprice: '5', spread_factor_q32: S3.toString() },
        { five_minute_start: String(T + 3600), ts: String(T + 3700), slot: '150', point_id: live.id, midprice: '6', spread_factor_q32: S_NOW.toString() },
      ]);
    });

    it('writes nothing new when batches are delivered again', async () => {
      const tables = ['midprice_points', 'midprice_minute', 'midprice_five_minute', 'midprice_hourly', 'midprice_state'];
      const before = await Promise.all(tables.map((t) => dump(db.pool, `${quoteIdent(SCHEMA)}.${t}`, 't')));
      await apply([discovered, u1, u2, u3, u3]);
      await apply([u4, u5, u6, live]);
      expect(await Promise.all(tables.map((t) => dump(db.pool, `${quoteIdent(SCHEMA)}.${t}`, 't')))).toEqual(before);
    });
  });

  it('a late spread-only update after a later-positioned discovery: no point, and it (not the snapshot) is carried to the next point', async () => {
    const P = addr('mid2:late-tag9');
    const tag9 = midpriceUpdated({ pool: P, slot: 50, blockTime: T + 50 }, null, S2);
    const tag5 = midpriceUpdated({ pool: P, slot: 60, blockTime: T + 60 }, 2n * Q, null);
    await apply([poolDiscovered({ pool: P, slot: 100 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S_NOW.toString() })]);
    await apply([tag9]);
    await apply([tag5]);
    expect(await points(P)).toEqual([point(T + 60, 60, tag5.signature, 2n * Q, S2, 'UpdateMidprice')]);
  });

  it('a tag-5 update without After fields and no source before it: the spread stays null (the later snapshot is not used)', async () => {
    const P = addr('mid2:no-source');
    const early = midpriceUpdated({ pool: P, slot: 40, blockTime: T + 40 }, 7n * Q, null);
    const withAfter = midpriceUpdated({ pool: P, slot: 41, blockTime: T + 41 }, 8n * Q, null, 41, { mid: 8n * Q, spread: S1 });
    await apply([poolDiscovered({ pool: P, slot: 100 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S_NOW.toString() }), early, withAfter]);
    expect(await points(P)).toEqual([
      point(T + 40, 40, early.signature, 7n * Q, null, 'UpdateMidprice'),
      point(T + 41, 41, withAfter.signature, 8n * Q, S1, 'UpdateMidprice'),
    ]);
  });

  it('takes MidpriceUpdated before PoolDiscovered; an older snapshot counts for points after it, not for those before it', async () => {
    const P = addr('mid2:before-discovery');
    const first = midpriceUpdated({ pool: P, slot: 5, blockTime: T + 5 }, 2n * Q, S1); // tag 10, before the pool is discovered
    const next = midpriceUpdated({ pool: P, slot: 6, blockTime: T + 6 }, 3n * Q, null);
    const late = midpriceUpdated({ pool: P, slot: 4, blockTime: T + 4 }, 4n * Q, null); // arrives last, positioned after the snapshot (3)
    const older = midpriceUpdated({ pool: P, slot: 2, blockTime: T + 2 }, 5n * Q, null); // before every source
    await apply([first]);
    await apply([poolDiscovered({ pool: P, slot: 3 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S3.toString() }), next]);
    await apply([late, older]);
    expect(await points(P)).toEqual([
      point(T + 2, 2, older.signature, 5n * Q, null, 'UpdateMidprice'),
      point(T + 4, 4, late.signature, 4n * Q, S3, 'UpdateMidprice'), // the snapshot at slot 3; the updates at 5 and 6 are later
      point(T + 5, 5, first.signature, 2n * Q, S1, 'UpdateMidpriceAndBaseSpread'),
      point(T + 6, 6, next.signature, 3n * Q, S1, 'UpdateMidprice'), // u at slot 5 is later than the snapshot at 3
    ]);
  });

  it('uses a PoolConfigChanged snapshot read before a point, and ignores the other event types', async () => {
    const P = addr('mid2:config');
    const u = midpriceUpdated({ pool: P, slot: 30, blockTime: T + 30 }, 2n * Q, null);
    await apply([
      poolConfigChanged({ pool: P, slot: 20 }, { midpriceQ32: (7n * Q).toString(), spreadFactorQ32: S2.toString() }),
      swapExecuted({ pool: P, slot: 25, blockTime: T + 25 }, { side: 'buy', amountIn: 10n, fee: 0n, amountOut: 1n, mid: 7n * Q }),
      u,
    ]);
    expect(await points(P)).toEqual([point(T + 30, 30, u.signature, 2n * Q, S2, 'UpdateMidprice')]);
  });

  describe('idempotency by event id', () => {
    const P = addr('mid2:dupes');
    const u = midpriceUpdated({ pool: P, slot: 70, blockTime: T + 70 }, 2n * Q, S1);

    it('applies an event id once, even when a copy comes with another block time; that copy is refused as a poison event', async () => {
      await apply([u]);
      const before = await dump(db.pool, `${quoteIdent(SCHEMA)}.midprice_points`, 't');
      await apply([u]); // an identical copy in a later batch: nothing
      const moved = { ...u, blockTime: T + 3600 + 70 }; // same id, another block time (another ts, another primary key)
      await expect(apply([moved])).rejects.toThrow(
        new RegExp(
          `^event ${u.id}: duplicate event id with a different payload: already applied with \\(block_time, .*\\) = \\(${T + 70},.*this copy has \\(${T + 3670},`,
        ),
      );
      await expect(apply([u, moved])).rejects.toThrow(`event ${u.id}: duplicate event id with a different payload in one batch`);
      expect(await dump(db.pool, `${quoteIdent(SCHEMA)}.midprice_points`, 't')).toEqual(before);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM read.midprice_hourly WHERE pool = $1', [P])).rows[0].n).toBe(1);
    });

    it("a copy of the pool's latest point, in a later batch, leaves the spread it carried to the next point", async () => {
      const Pc = addr('mid2:copy-carried');
      const u = midpriceUpdated({ pool: Pc, slot: 30, blockTime: T + 30 }, null, S2); // tag 9: S2 from slot 30
      const p = midpriceUpdated({ pool: Pc, slot: 40, blockTime: T + 40 }, 2n * Q, null); // tag 5 without After: carries S2
      const next = midpriceUpdated({ pool: Pc, slot: 50, blockTime: T + 50 }, 3n * Q, null); // the same
      await apply([poolConfigChanged({ pool: Pc, slot: 20 }, { midpriceQ32: MID_NOW.toString(), spreadFactorQ32: S3.toString() }), u, p]);
      await apply([p]); // the log's copy of the point, delivered in a later batch
      await apply([next]);
      expect(await points(Pc)).toEqual([
        point(T + 40, 40, p.signature, 2n * Q, S2, 'UpdateMidprice'),
        point(T + 50, 50, next.signature, 3n * Q, S2, 'UpdateMidprice'), // not the snapshot's S3 (slot 20), older than u
      ]);
    });
  });

  it('keeps the clusters apart', async () => {
    const P = addr('mid2:clusters');
    await apply([
      midpriceUpdated({ pool: P, slot: 1, blockTime: T }, 7n * Q, S1),
      midpriceUpdated({ cluster: 'devnet', pool: P, slot: 2, blockTime: T }, 8n * Q, null),
    ]);
    expect((await points(P, 'mainnet-beta')).map((p) => [p.midprice_q32, p.spread_factor_q32])).toEqual([[(7n * Q).toString(), S1.toString()]]);
    expect((await points(P, 'devnet')).map((p) => [p.midprice_q32, p.spread_factor_q32])).toEqual([[(8n * Q).toString(), null]]);
  });

  it('refuses an update the program could not have accepted', async () => {
    const P = addr('mid2:poison');
    const zero = midpriceUpdated({ pool: P, slot: 1 }, 1n, null);
    await expect(apply([{ ...zero, data: { ...zero.data, midpriceQ32: '0' } }])).rejects.toThrow(`event ${zero.id}: midpriceQ32 is 0`);
  });
  it('a v2 build serves the same five-minute rows, derived from its minutes, as v7 writes, their tail and sample JSON too (every pool above)', async () => {
    const cols =
      'cluster, pool, five_minute_start, ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32, midprice, base_spread_factor, point_id, tail, sample_json';
    const order = 'ORDER BY cluster, pool, five_minute_start';
    const derived = await db.pool.query(`SELECT ${cols} FROM (${olderBuildViews(2)[3].select(quoteIdent(V2_SCHEMA))}) d ${order}`);
    const table = await db.pool.query(`SELECT ${cols} FROM read.midprice_five_minute ${order}`);
    expect(table.rows.length).toBeGreaterThan(5);
    expect(derived.rows).toEqual(table.rows);
  });

  it('v2, v5 and v6 builds serve the same points, their sample JSON derived, as v7 gives from its stored head (every pool above)', async () => {
    const order = 'ORDER BY cluster, pool, ts, id';
    const table = (await db.pool.query(`SELECT * FROM read.midprice_points ${order}`)).rows;
    expect(table.length).toBeGreaterThan(5);
    // Each is a whole sample once its timestamp is put in front: what the API's raw history sends.
    for (const r of table) {
      expect(JSON.parse(`{"timestamp":${r.ts}${r.sample_json}`)).toEqual({
        timestamp: Number(r.ts),
        slot: Number(r.slot),
        midprice: Number(r.midprice_q32) / 2 ** 32,
        base_spread_factor: r.spread_factor_q32 === null ? null : Number(r.spread_factor_q32) / 2 ** 32,
        signature: r.signature,
      });
    }
    for (const [version, schema] of [
      [2, V2_SCHEMA],
      [5, V5_SCHEMA],
      [6, V6_SCHEMA],
    ] as const) {
      const derived = await db.pool.query(`SELECT * FROM (${olderBuildViews(version)[0].select(quoteIdent(schema))}) d ${order}`);
      expect({ version, rows: derived.rows }).toEqual({ version, rows: table });
    }
  });

  it('v2, v5 and v6 builds serve the same hourly rows, their hour items derived or stored, as v7 writes (every pool above)', async () => {
    const order = 'ORDER BY cluster, pool, hour_start';
    const table = (await db.pool.query(`SELECT * FROM read.midprice_hourly ${order}`)).rows;
    expect(table.length).toBeGreaterThan(5);
    expect(table.every((r) => r.five_minute_items !== null && r.thirty_minute_items !== null)).toBe(true);
    for (const [version, schema] of [
      [2, V2_SCHEMA],
      [5, V5_SCHEMA],
      [6, V6_SCHEMA],
    ] as const) {
      const derived = await db.pool.query(`SELECT * FROM (${olderBuildViews(version)[2].select(quoteIdent(schema))}) d ${order}`);
      expect({ version, rows: derived.rows }).toEqual({ version, rows: table });
    }
  });

  it("an hour's items are its 5 minutes' and half hours' samples, each the last point by chain position, in time order", async () => {
    // Points of one hour, delivered out of order: within a half hour the later 5 minutes hold a point positioned
    // earlier in the chain, so the half hour's sample is the other one.
    const P = addr('mid6:items');
    const u = (slot: number, at: number, mid: bigint) => midpriceUpdated({ pool: P, slot, blockTime: T + at }, mid, S1);
    const [a, b, c, d] = [u(500, 10, 2n * Q), u(400, 400, 3n * Q), u(600, 1900, 4n * Q), u(650, 1950, 5n * Q)];
    await apply([d, b]);
    await apply([c]);
    await apply([a]);
    const sample = (ts: number, e: typeof a, mid: number) =>
      `{"timestamp":${ts},"slot":${e.slot},"midprice":${mid},"base_spread_factor":${Number(S1) / 2 ** 32},"signature":"${e.signature}"}`;
    const { rows } = await db.pool.query('SELECT hour_start, five_minute_items, thirty_minute_items FROM read.midprice_hourly WHERE pool = $1', [P]);
    expect(rows).toEqual([
      {
        hour_start: String(T),
        five_minute_items: [sample(T, a, 2), sample(T + 300, b, 3), sample(T + 1800, d, 5)].join(','),
        thirty_minute_items: [sample(T, a, 2), sample(T + 1800, d, 5)].join(','),
      },
    ]);
  });

  it("a replay's handler (points and state only) and its finish leave the same tables as the live handler (every pool above)", async () => {
    const count = async (schema: string) => (await db.pool.query(`SELECT count(*)::int AS n FROM ${quoteIdent(schema)}.midprice_minute`)).rows[0].n;
    // Before its finish, the replay has only the minutes of the batches its fallback (a copy of a point) wrote.
    expect(await count(REPLAY_SCHEMA)).toBeLessThan(await count(SCHEMA));
    await expectFinishedReplayEqual(db.pool, SCHEMA, REPLAY_SCHEMA);
  });
});

describe("midprice v7's replay (points and state per batch, the last points and hour items at the finish), on a generated log", () => {
  let db: TestDatabase;
  const [LIVE, REPLAY] = ['proj_midprice_v7_gen_live', 'proj_midprice_v7_gen_replay'];

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    for (const schema of [LIVE, REPLAY]) await createBuildTables(db.pool, midpriceSchemaV7, schema);
  });
  afterAll(() => db.drop());

  it('ends with the same tables as the live handler: late snapshots, blocks without time, exact copies, batches of any size', async () => {
    const events = [...generateEvents({ events: 30_000, poolsPerCluster: 4, seed: 11, duplicates: true })];
    const [live, replay] = [createMidpriceHandler(quoteIdent(LIVE)), createMidpriceBuildingHandler(quoteIdent(REPLAY))];
    const random = mulberry32(5);
    for (let at = 0; at < events.length;) {
      const batch = events.slice(at, (at += 1 + Math.floor(random() * 1500)));
      await applyBatch(db.pool, live, batch);
      await applyBatch(db.pool, replay, batch);
    }
    await expectFinishedReplayEqual(db.pool, LIVE, REPLAY);
  });
});
