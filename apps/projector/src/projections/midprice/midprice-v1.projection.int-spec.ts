import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import {
  addr,
  applyBatch,
  dump,
  MID_1_5,
  midpriceUpdated,
  poolConfigChanged,
  poolDiscovered,
  Q,
  swapExecuted,
  vaultBalancesChanged,
} from '../../../test-support/events';
import { projectorMigrations } from '../../migrations';
import { quoteIdent } from '../../sql/identifiers';
import { createMidpriceHandlerV1 } from './midprice-v1.projection';

const T = 1_763_798_400; // a minute and hour start
const S1 = Q - 1000n;
const S2 = Q - 2000n;
const SCHEMA = quoteIdent('proj_midprice_v1_initial');

describe('midprice projection v1 (released; still consumes an active v1 build during the upgrade)', () => {
  let db: TestDatabase;
  const handler = createMidpriceHandlerV1(SCHEMA);
  const apply = (events: Parameters<typeof applyBatch>[2]) => applyBatch(db.pool, handler, events);
  const points = async (pool: string, cluster = 'mainnet-beta') =>
    (
      await db.pool.query(
        'SELECT ts, slot, signature, midprice_q32, spread_factor_q32, instruction FROM read.midprice_points WHERE cluster = $1 AND pool = $2 ORDER BY ts, slot',
        [cluster, pool],
      )
    ).rows;

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
  });
  afterAll(() => db.drop());

  describe('points with carried-forward fields, and last point per minute / hour', () => {
    const P = addr('mid:p1');
    const u1 = midpriceUpdated({ pool: P, slot: 10, blockTime: T + 1 }, null, S2); // tag 9 right after discovery: midprice from the snapshot
    const u2 = midpriceUpdated({ pool: P, slot: 11, blockTime: T + 2 }, 2n * Q, S1); // tag 10
    const u3 = midpriceUpdated({ pool: P, slot: 12, blockTime: T + 59 }, 3n * Q, null); // tag 5: spread carried (S1)
    const u4 = midpriceUpdated({ pool: P, slot: 20, blockTime: T + 61 }, null, S2); // next batch, tag 9: midprice carried (3)
    const u5 = midpriceUpdated({ pool: P, slot: 30, blockTime: T + 3601 }, 5n * Q, S1);
    const late = midpriceUpdated({ pool: P, slot: 25, blockTime: T + 3600 }, 4n * Q, S1); // arrives after u5, earlier position

    beforeAll(async () => {
      await apply([poolDiscovered({ pool: P, slot: 9 }, { midpriceQ32: MID_1_5.toString(), spreadFactorQ32: S1.toString() }), u1, u2, u3]);
      await apply([
        swapExecuted({ pool: P, slot: 20 }, { side: 'buy', amountIn: 1n, fee: 0n, amountOut: 0n, mid: null }),
        vaultBalancesChanged({ pool: P, slot: 20 }, 1n, 1n),
        u4,
      ]);
      await apply([u5, poolConfigChanged({ pool: P, slot: 26 }, { midpriceQ32: null, spreadFactorQ32: null }), late]);
    });

    it('records every update with block time, slot and signature, filling the field its instruction left null', async () => {
      expect(await points(P)).toEqual([
        {
          ts: String(T + 1),
          slot: '10',
          signature: u1.signature,
          midprice_q32: MID_1_5.toString(),
          spread_factor_q32: S2.toString(),
          instruction: 'UpdateBaseSpread',
        },
        {
          ts: String(T + 2),
          slot: '11',
          signature: u2.signature,
          midprice_q32: (2n * Q).toString(),
          spread_factor_q32: S1.toString(),
          instruction: 'UpdateMidpriceAndBaseSpread',
        },
        {
          ts: String(T + 59),
          slot: '12',
          signature: u3.signature,
          midprice_q32: (3n * Q).toString(),
          spread_factor_q32: S1.toString(),
          instruction: 'UpdateMidprice',
        },
        {
          ts: String(T + 61),
          slot: '20',
          signature: u4.signature,
          midprice_q32: (3n * Q).toString(),
          spread_factor_q32: S2.toString(),
          instruction: 'UpdateBaseSpread',
        },
        {
          ts: String(T + 3600),
          slot: '25',
          signature: late.signature,
          midprice_q32: (4n * Q).toString(),
          spread_factor_q32: S1.toString(),
          instruction: 'UpdateMidpriceAndBaseSpread',
        },
        {
          ts: String(T + 3601),
          slot: '30',
          signature: u5.signature,
          midprice_q32: (5n * Q).toString(),
          spread_factor_q32: S1.toString(),
          instruction: 'UpdateMidpriceAndBaseSpread',
        },
      ]);
      const { rows } = await db.pool.query('SELECT midprice, base_spread_factor FROM read.midprice_points WHERE pool = $1 AND slot = 11', [P]);
      expect(Number(rows[0].midprice)).toBe(2);
      expect(Number(rows[0].base_spread_factor)).toBeCloseTo(1 - 1000 / 2 ** 32, 15);
    });

    it('keeps the last point of each minute and hour by chain position', async () => {
      const minute = await db.pool.query('SELECT minute_start, slot, point_id, midprice_q32 FROM read.midprice_minute WHERE pool = $1 ORDER BY minute_start', [
        P,
      ]);
      expect(minute.rows).toEqual([
        { minute_start: String(T), slot: '12', point_id: u3.id, midprice_q32: (3n * Q).toString() },
        { minute_start: String(T + 60), slot: '20', point_id: u4.id, midprice_q32: (3n * Q).toString() },
        { minute_start: String(T + 3600), slot: '30', point_id: u5.id, midprice_q32: (5n * Q).toString() }, // u5 wins although `late` arrived after it
      ]);
      const hourly = await db.pool.query('SELECT hour_start, slot FROM read.midprice_hourly WHERE pool = $1 ORDER BY hour_start', [P]);
      expect(hourly.rows).toEqual([
        { hour_start: String(T), slot: '20' },
        { hour_start: String(T + 3600), slot: '30' },
      ]);
    });

    it('writes nothing new when batches are delivered again', async () => {
      const tables = ['midprice_points', 'midprice_minute', 'midprice_hourly', 'midprice_state'];
      const before = await Promise.all(tables.map((t) => dump(db.pool, `${SCHEMA}.${t}`, 't')));
      await apply([u1, u2, u3, u4, u4]);
      await apply([u5, late]);
      expect(await Promise.all(tables.map((t) => dump(db.pool, `${SCHEMA}.${t}`, 't')))).toEqual(before);
    });
  });

  it('leaves a field null when nothing is known yet, and keeps the clusters apart', async () => {
    const P = addr('mid:clusters');
    await apply([
      midpriceUpdated({ pool: P, slot: 1, blockTime: T }, 7n * Q, null),
      midpriceUpdated({ cluster: 'devnet', pool: P, slot: 1, blockTime: T }, null, S1),
    ]);
    expect((await points(P, 'mainnet-beta')).map((p) => [p.midprice_q32, p.spread_factor_q32])).toEqual([[(7n * Q).toString(), null]]);
    expect((await points(P, 'devnet')).map((p) => [p.midprice_q32, p.spread_factor_q32])).toEqual([[null, S1.toString()]]);
  });

  it('refuses an update the program could not have accepted', async () => {
    const P = addr('mid:poison');
    const zero = midpriceUpdated({ pool: P, slot: 1 }, 1n, null);
    await expect(apply([{ ...zero, data: { ...zero.data, midpriceQ32: '0' } }])).rejects.toThrow(`event ${zero.id}: midpriceQ32 is 0`);
    const empty = midpriceUpdated({ pool: P, slot: 2 }, 1n, 2n);
    await expect(apply([{ ...empty, data: { ...empty.data, midpriceQ32: null } }])).rejects.toThrow(/UpdateMidpriceAndBaseSpread without a midpriceQ32/);
  });
});
