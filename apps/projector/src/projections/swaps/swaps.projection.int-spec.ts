import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import {
  addr,
  applyBatch,
  dump,
  feeSplitChanged,
  MID_1_5,
  midpriceUpdated,
  poolDiscovered,
  Q,
  swapExecuted,
  vaultBalancesChanged,
} from '../../../test-support/events';
import { createServedBuild } from '../../../test-support/served-build';
import { createBuildTables } from '../../builds/build-objects';
import { projectorMigrations } from '../../migrations';
import { quoteIdent } from '../../sql/identifiers';
import { runApart } from '../../builds/build-registry';
import { createSwapsBuildingHandler, createSwapsHandler } from './swaps.projection';
import { finishSwapsBuild } from './swaps-running-finish';
import { RUNNING_TABLE_COLUMNS, runningViewsFromSwaps, swapsSchemaV3 } from './swaps.schema';

const H0 = 1_763_798_400; // an hour start
const D0 = 1_763_769_600; // its UTC day
const q = (n: bigint) => (n * Q).toString();

const SCHEMA = 'proj_swaps_v3_test';
/** The running totals (v3): a redelivery or a copy must leave them as they were, too. */
const RUNNING_VIEWS = ['fee_running_second', 'fee_running_day', 'fee_recipient_running_second', 'fee_recipient_running_day', 'fee_recipients'];

describe('swaps projection v3 (DESIGN §4 valuation, rollups)', () => {
  let db: TestDatabase;
  const handler = createSwapsHandler(quoteIdent(SCHEMA));
  const apply = (events: Parameters<typeof applyBatch>[2]) => applyBatch(db.pool, handler, events);
  const rollup = async (table: string, bucket: string, pool: string, cluster = 'mainnet-beta') =>
    (await db.pool.query(`SELECT * FROM read.${table} WHERE cluster = $1 AND pool = $2 ORDER BY ${bucket}`, [cluster, pool])).rows;

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    await createServedBuild(db.pool, swapsSchemaV3, SCHEMA);
  });
  afterAll(() => db.drop());

  describe('valuation and rollups of one pool', () => {
    const P = addr('swaps:p1');
    const s1 = swapExecuted({ pool: P, slot: 100, blockTime: H0 + 10 }, { side: 'buy', amountIn: 1000n, fee: 10n, amountOut: 600n, mid: MID_1_5 });
    const s2 = swapExecuted({ pool: P, slot: 101, blockTime: H0 + 70 }, { side: 'sell', amountIn: 1000n, fee: 10n, amountOut: 1400n, mid: MID_1_5 });
    const s3 = swapExecuted({ pool: P, slot: 200, blockTime: H0 + 3605 }, { side: 'sell', amountIn: 2000n, fee: 20n, amountOut: 3000n, mid: MID_1_5 });
    const s4 = swapExecuted({ pool: P, slot: 201, blockTime: H0 + 3630 }, { side: 'buy', amountIn: 500n, fee: 5n, amountOut: 300n, mid: null });
    // Other event types are no-ops for this read model but must be accepted.
    const others = [
      poolDiscovered({ pool: P, slot: 99 }),
      midpriceUpdated({ pool: P, slot: 100 }, MID_1_5, null),
      vaultBalancesChanged({ pool: P, slot: 101 }, 1n, 2n),
      feeSplitChanged({ pool: P, slot: 101 }, []),
    ];

    beforeAll(async () => {
      await apply([others[0], s1, others[1], s2, others[2], others[3]]);
      await apply([s3, s4]);
    });

    it('stores each swap with its value: volume = gross input, spread = net input − output at mid, fee valued like the input', async () => {
      const { rows } = await db.pool.query(
        'SELECT id, side, volume_q32, spread_q32, protocol_fee_q32, fee_x_raw, fee_y_raw, priced, ts, minute FROM (SELECT *, ts - ts % 60 AS minute FROM read.swaps) s WHERE pool = $1 ORDER BY slot',
        [P],
      );
      expect(rows).toEqual([
        // buy 1000 Y (fee 10) for 600 X at mid 1.5: spread = 990 − 600 × 1.5 = 90
        {
          id: s1.id,
          side: 'buy',
          volume_q32: q(1000n),
          spread_q32: q(90n),
          protocol_fee_q32: q(10n),
          fee_x_raw: '0',
          fee_y_raw: '10',
          priced: true,
          ts: String(H0 + 10),
          minute: String(H0),
        },
        // sell 1000 X (fee 10) for 1400 Y: volume = 1500, fee = 15, spread = 990 × 1.5 − 1400 = 85
        {
          id: s2.id,
          side: 'sell',
          volume_q32: q(1500n),
          spread_q32: q(85n),
          protocol_fee_q32: q(15n),
          fee_x_raw: '10',
          fee_y_raw: '0',
          priced: true,
          ts: String(H0 + 70),
          minute: String(H0 + 60),
        },
        // sell 2000 X (fee 20) for 3000 Y: spread = 1980 × 1.5 − 3000 = −30 (price improvement)
        {
          id: s3.id,
          side: 'sell',
          volume_q32: q(3000n),
          spread_q32: q(-30n),
          protocol_fee_q32: q(30n),
          fee_x_raw: '20',
          fee_y_raw: '0',
          priced: true,
          ts: String(H0 + 3605),
          minute: String(H0 + 3600),
        },
        // buy without a midprice yet: quote amounts only, spread 0, flagged
        {
          id: s4.id,
          side: 'buy',
          volume_q32: q(500n),
          spread_q32: '0',
          protocol_fee_q32: q(5n),
          fee_x_raw: '0',
          fee_y_raw: '5',
          priced: false,
          ts: String(H0 + 3630),
          minute: String(H0 + 3600),
        },
      ]);
    });

    it('rolls up per hour, minute and UTC day', async () => {
      const totals = (bucket: number, v: bigint, s: bigint, f: bigint, fx: string, fy: string, n: string, unpriced: string) => ({
        volume_q32: q(v),
        spread_q32: q(s),
        protocol_fee_q32: q(f),
        fee_x_raw: fx,
        fee_y_raw: fy,
        swap_count: n,
        unpriced_count: unpriced,
        b: String(bucket),
      });
      const strip = (rows: Record<string, unknown>[], col: string) => rows.map(({ cluster: _c, pool: _p, [col]: b, ...r }) => ({ ...r, b }));
      expect(strip(await rollup('fee_rollup_hourly', 'hour_start', P), 'hour_start')).toEqual([
        totals(H0, 2500n, 175n, 25n, '10', '10', '2', '0'),
        totals(H0 + 3600, 3500n, -30n, 35n, '20', '5', '2', '1'),
      ]);
      expect(strip(await rollup('fee_rollup_minute', 'minute_start', P), 'minute_start')).toEqual([
        totals(H0, 1000n, 90n, 10n, '0', '10', '1', '0'),
        totals(H0 + 60, 1500n, 85n, 15n, '10', '0', '1', '0'),
        totals(H0 + 3600, 3500n, -30n, 35n, '20', '5', '2', '1'),
      ]);
      // fees = spread + protocol fee = (175 − 30) + 60
      expect(await rollup('volume_daily', 'day_start', P)).toEqual([
        {
          cluster: 'mainnet-beta',
          pool: P,
          day_start: String(D0),
          volume_q32: q(6000n),
          spread_q32: q(145n),
          protocol_fee_q32: q(60n),
          fees_q32: q(205n),
          swap_count: '4',
        },
      ]);
    });

    it('counts nothing twice when a batch is delivered again, whole or in part', async () => {
      const tables = ['swaps', 'fee_rollup_hourly', 'fee_rollup_minute', 'volume_daily', ...RUNNING_VIEWS];
      const before = await Promise.all(tables.map((t) => dump(db.pool, `read.${t}`, 't')));
      await apply([others[0], s1, others[1], s2, others[2], others[3]]);
      await apply([s2, s3, s3, s4]);
      const after = await Promise.all(tables.map((t) => dump(db.pool, `read.${t}`, 't')));
      expect(after).toEqual(before);
    });
  });

  describe('protocol fee split (spec "Rules for protocol_fee_split" 1–4)', () => {
    const P = addr('swaps:split');
    const DEFAULT_POOL = addr('swaps:default-recipient');
    const A = H0 + 7200; // before split tracking
    const B = H0 + 10_800; // with split tracking
    const R1 = addr('recipient-1');
    const R2 = addr('recipient-2');
    const R3 = addr('recipient-3');
    const t1 = swapExecuted({ pool: P, slot: 300, blockTime: A + 5 }, { side: 'sell', amountIn: 1000n, fee: 10n, amountOut: 1400n, mid: MID_1_5, split: null });
    const t2 = swapExecuted(
      { pool: P, slot: 400, blockTime: B + 5 },
      {
        side: 'sell',
        amountIn: 1000n,
        fee: 10n,
        amountOut: 1400n,
        mid: MID_1_5,
        split: [
          { recipient: R1, ppm: 700_000 },
          { recipient: R2, ppm: 300_000 },
        ],
      },
    );
    const t3 = swapExecuted(
      { pool: P, slot: 410, blockTime: B + 50 },
      {
        side: 'buy',
        amountIn: 2000n,
        fee: 20n,
        amountOut: 1200n,
        mid: MID_1_5,
        split: [
          { recipient: R1, ppm: 500_000 },
          { recipient: R2, ppm: 500_000 },
        ],
      },
    );
    const t4 = swapExecuted(
      { pool: P, slot: 420, blockTime: B + 60 },
      { side: 'buy', amountIn: 100n, fee: 0n, amountOut: 60n, mid: MID_1_5, split: [{ recipient: R3, ppm: 1_000_000 }] },
    );
    const d1 = swapExecuted(
      { pool: DEFAULT_POOL, slot: 400, blockTime: B + 5 },
      { side: 'sell', amountIn: 1000n, fee: 10n, amountOut: 1400n, mid: MID_1_5, split: null },
    );

    beforeAll(async () => {
      // t3 (later chain position) arrives before t2: the last observed ppm still follows chain order.
      await apply([
        t1,
        d1,
        feeSplitChanged({ pool: P, slot: 350 }, [
          { recipient: R1, ppm: 700_000 },
          { recipient: R2, ppm: 300_000 },
        ]),
        t3,
      ]);
      await apply([t2, t4]);
    });

    const recipients = async (pool: string, from: number, to: number) =>
      (
        await db.pool.query(
          `SELECT recipient, sum(fee_x_raw_x1e6)::text AS x, sum(fee_y_raw_x1e6)::text AS y, sum(fee_value_q32_x1e6)::text AS v,
                  (array_agg(last_ppm ORDER BY last_slot DESC, last_tx_index DESC, last_ix_index DESC, last_inner_index DESC))[1] AS ppm
             FROM read.fee_recipient_hourly WHERE cluster = 'mainnet-beta' AND pool = $1 AND hour_start >= $2 AND hour_start < $3
            GROUP BY recipient ORDER BY recipient`,
          [pool, from, to],
        )
      ).rows;
    const protocolFee = async (pool: string, from: number, to: number) =>
      BigInt(
        (
          await db.pool.query(
            `SELECT COALESCE(sum(protocol_fee_q32), 0)::text AS f FROM read.fee_rollup_hourly WHERE pool = $1 AND hour_start >= $2 AND hour_start < $3`,
            [pool, from, to],
          )
        ).rows[0].f,
      );

    it('splits each fee-bearing split swap exactly (fee × ppm) and keeps the most recent ppm by chain position', async () => {
      // R1: 10 X × 0.7 and 20 Y × 0.5; value (15 × 0.7 + 20 × 0.5) Y = 20.5 Y; R2: 15 × 0.3 + 20 × 0.5 = 14.5 Y
      expect(await recipients(P, B, B + 3600)).toEqual(
        [
          { recipient: R1, x: '7000000', y: '10000000', v: (Q * 20_500_000n).toString(), ppm: 500_000 },
          { recipient: R2, x: '3000000', y: '10000000', v: (Q * 14_500_000n).toString(), ppm: 500_000 },
        ].sort((a, b) => (a.recipient < b.recipient ? -1 : 1)),
      );
      const { rows } = await db.pool.query('SELECT swap_id, recipient, ppm FROM read.swap_fee_splits WHERE pool = $1 ORDER BY slot, recipient', [P]);
      expect(rows.map((r) => r.swap_id)).toEqual([t2.id, t2.id, t3.id, t3.id]); // rule 2: no rows for the zero-fee t4
    });

    it('rule 4: recipients add up to the protocol fee only when every fee-bearing swap carried a split', async () => {
      const sum = async (from: number, to: number) => (await recipients(P, from, to)).reduce((a, r) => a + BigInt(r.v), 0n);
      expect(await sum(B, B + 3600)).toBe((await protocolFee(P, B, B + 3600)) * 1_000_000n); // 35 Y, all split
      expect(await sum(A, B + 3600)).toBeLessThan((await protocolFee(P, A, B + 3600)) * 1_000_000n); // t1 predates tracking
    });

    it('rules 1 and 3: no split for a default-recipient pool, nor for a window before tracking began', async () => {
      expect(await recipients(DEFAULT_POOL, 0, B + 3600)).toEqual([]);
      expect(await protocolFee(DEFAULT_POOL, 0, B + 3600)).toBe(15n * Q);
      expect(await recipients(P, A, A + 3600)).toEqual([]);
      expect(await protocolFee(P, A, A + 3600)).toBe(15n * Q);
    });
  });

  describe('per-recipient minute rollup (same semantics as the hourly one)', () => {
    const P = addr('swaps:recipient-minute');
    const M = H0 + 5 * 3600; // a minute (and hour) start
    const R1 = addr('rm-recipient-1');
    const R2 = addr('rm-recipient-2');
    // Two minutes of one hour; the later swap (slot 510) arrives first.
    const a = swapExecuted(
      { pool: P, slot: 500, blockTime: M + 10 },
      {
        side: 'buy',
        amountIn: 1000n,
        fee: 100n,
        amountOut: 600n,
        mid: MID_1_5,
        split: [
          { recipient: R1, ppm: 600_000 },
          { recipient: R2, ppm: 400_000 },
        ],
      },
    );
    const b = swapExecuted(
      { pool: P, slot: 510, blockTime: M + 70 },
      { side: 'sell', amountIn: 2000n, fee: 20n, amountOut: 2900n, mid: MID_1_5, split: [{ recipient: R1, ppm: 250_000 }] },
    );
    const c = swapExecuted(
      { pool: P, slot: 505, blockTime: M + 20 },
      { side: 'buy', amountIn: 1000n, fee: 0n, amountOut: 600n, mid: MID_1_5, split: [{ recipient: R2, ppm: 1_000_000 }] },
    );

    beforeAll(async () => {
      await apply([b, c]);
      await apply([a]);
    });

    it('keeps each recipient’s exact share and latest ppm per minute, and per hour', async () => {
      const cols = 'recipient, fee_x_raw_x1e6 AS x, fee_y_raw_x1e6 AS y, fee_value_q32_x1e6 AS v, swap_count AS n, last_ppm, last_slot';
      const minute = await db.pool.query(
        `SELECT minute_start, ${cols} FROM read.fee_recipient_minute WHERE cluster = 'mainnet-beta' AND pool = $1 ORDER BY minute_start, recipient`,
        [P],
      );
      const byRecipient = <T extends { recipient: string }>(rows: T[]) =>
        rows.sort((l, r) => (l.recipient < r.recipient ? -1 : l.recipient > r.recipient ? 1 : 0));
      byRecipient(minute.rows);
      minute.rows.sort((l, r) => Number(l.minute_start) - Number(r.minute_start)); // stable: recipients stay sorted within a minute
      // a: fee 100 Y atoms → R1 60, R2 40 (value = atoms, a buy); c pays no fee: no share; b: fee 20 X → R1 5 X, valued 5 × 1.5 = 7.5 Y.
      expect(minute.rows).toEqual([
        ...byRecipient([
          { minute_start: String(M), recipient: R1, x: '0', y: '60000000', v: (Q * 60_000_000n).toString(), n: '1', last_ppm: 600_000, last_slot: '500' },
          { minute_start: String(M), recipient: R2, x: '0', y: '40000000', v: (Q * 40_000_000n).toString(), n: '1', last_ppm: 400_000, last_slot: '500' },
        ]),
        { minute_start: String(M + 60), recipient: R1, x: '5000000', y: '0', v: (Q * 7_500_000n).toString(), n: '1', last_ppm: 250_000, last_slot: '510' },
      ]);
      const hour = await db.pool.query(`SELECT hour_start, ${cols} FROM read.fee_recipient_hourly WHERE cluster = 'mainnet-beta' AND pool = $1`, [P]);
      expect(byRecipient(hour.rows)).toEqual(
        byRecipient([
          { hour_start: String(M), recipient: R1, x: '5000000', y: '60000000', v: (Q * 67_500_000n).toString(), n: '2', last_ppm: 250_000, last_slot: '510' }, // b is later than a
          { hour_start: String(M), recipient: R2, x: '0', y: '40000000', v: (Q * 40_000_000n).toString(), n: '1', last_ppm: 400_000, last_slot: '500' },
        ]),
      );
    });
  });

  it('a sell before any midprice: volume, fee value and spread 0, fee atoms and split atoms exact, counted as unpriced', async () => {
    const P = addr('swaps:unpriced-sell');
    const R1 = addr('unpriced-recipient');
    const s = swapExecuted(
      { pool: P, slot: 50, blockTime: H0 + 100 },
      { side: 'sell', amountIn: 1000n, fee: 10n, amountOut: 1400n, mid: null, split: [{ recipient: R1, ppm: 700_000 }] },
    );
    await apply([s]);
    const { rows } = await db.pool.query('SELECT volume_q32, spread_q32, protocol_fee_q32, fee_x_raw, fee_y_raw, priced FROM read.swaps WHERE pool = $1', [P]);
    expect(rows).toEqual([{ volume_q32: '0', spread_q32: '0', protocol_fee_q32: '0', fee_x_raw: '10', fee_y_raw: '0', priced: false }]);
    for (const [table, bucket] of [
      ['fee_rollup_hourly', 'hour_start'],
      ['fee_rollup_minute', 'minute_start'],
    ]) {
      expect(
        (await rollup(table, bucket, P)).map(({ volume_q32, spread_q32, protocol_fee_q32, fee_x_raw, fee_y_raw, swap_count, unpriced_count }) => ({
          volume_q32,
          spread_q32,
          protocol_fee_q32,
          fee_x_raw,
          fee_y_raw,
          swap_count,
          unpriced_count,
        })),
      ).toEqual([{ volume_q32: '0', spread_q32: '0', protocol_fee_q32: '0', fee_x_raw: '10', fee_y_raw: '0', swap_count: '1', unpriced_count: '1' }]);
    }
    expect(
      (await rollup('fee_recipient_minute', 'minute_start', P)).map((r) => [r.recipient, r.fee_x_raw_x1e6, r.fee_y_raw_x1e6, r.fee_value_q32_x1e6]),
    ).toEqual([[R1, '7000000', '0', '0']]);
    expect((await rollup('volume_daily', 'day_start', P)).map((r) => [r.volume_q32, r.fees_q32, r.swap_count])).toEqual([['0', '0', '1']]);
  });

  it('rule 4 with a split adding up to less than 10^6 ppm and default-recipient swaps in the same pool and window', async () => {
    const P = addr('swaps:partial-split');
    const R1 = addr('partial-recipient-1');
    const R2 = addr('partial-recipient-2');
    const W = H0 + 8 * 3600;
    await apply([
      // split 30 % + 20 %: half of this fee (100 Y) goes to no listed recipient
      swapExecuted(
        { pool: P, slot: 600, blockTime: W + 30 },
        {
          side: 'buy',
          amountIn: 10_000n,
          fee: 100n,
          amountOut: 6000n,
          mid: MID_1_5,
          split: [
            { recipient: R1, ppm: 300_000 },
            { recipient: R2, ppm: 200_000 },
          ],
        },
      ),
      // the default recipient (no split) in the same minute
      swapExecuted({ pool: P, slot: 601, blockTime: W + 40 }, { side: 'buy', amountIn: 5000n, fee: 50n, amountOut: 3000n, mid: MID_1_5, split: null }),
    ]);
    const fee = BigInt((await rollup('fee_rollup_minute', 'minute_start', P))[0].protocol_fee_q32);
    expect(fee).toBe(150n * Q);
    for (const [table, bucket] of [
      ['fee_recipient_minute', 'minute_start'],
      ['fee_recipient_hourly', 'hour_start'],
    ]) {
      const shares = (await rollup(table, bucket, P)).map((r) => [r.recipient, r.fee_y_raw_x1e6, r.fee_value_q32_x1e6, r.last_ppm]);
      expect(shares.sort()).toEqual(
        [
          [R1, '30000000', (Q * 30_000_000n).toString(), 300_000], // 100 × 0.3 = 30 Y
          [R2, '20000000', (Q * 20_000_000n).toString(), 200_000], // 100 × 0.2 = 20 Y
        ].sort(),
      );
      const sum = shares.reduce((a, r) => a + BigInt(r[2] as string), 0n);
      expect(sum).toBe(50n * Q * 1_000_000n); // 50 of the 150 Y protocol fee: less than the total, as rule 4 says
      expect(sum).toBeLessThan(fee * 1_000_000n);
    }
  });

  describe('idempotency by event id', () => {
    it('counts an event id once even when a copy comes with another block time, and refuses that copy as a poison event', async () => {
      const P = addr('swaps:dupes');
      const s = swapExecuted(
        { pool: P, slot: 700, blockTime: H0 + 10 },
        { side: 'buy', amountIn: 1000n, fee: 10n, amountOut: 600n, mid: MID_1_5, split: [{ recipient: addr('dupe-r'), ppm: 1_000_000 }] },
      );
      await apply([s]);
      const tables = ['swaps', 'fee_rollup_hourly', 'fee_rollup_minute', 'fee_recipient_hourly', 'fee_recipient_minute', 'volume_daily', ...RUNNING_VIEWS];
      const before = await Promise.all(tables.map((t) => dump(db.pool, `read.${t}`, 't')));
      await apply([s, s]); // identical copies: nothing
      const moved = { ...s, blockTime: H0 + 86_400 + 10 }; // same id, another day: another primary key
      await expect(apply([moved])).rejects.toThrow(
        new RegExp(
          `^event ${s.id}: duplicate event id with a different payload: already applied with \\(block_time, .*\\) = \\(${H0 + 10},.*this copy has \\(${H0 + 86_410},`,
        ),
      );
      await expect(apply([s, moved])).rejects.toThrow(`event ${s.id}: duplicate event id with a different payload in one batch`);
      expect(await Promise.all(tables.map((t) => dump(db.pool, `read.${t}`, 't')))).toEqual(before);
      expect((await db.pool.query('SELECT count(*)::int AS n FROM read.swaps WHERE id = $1', [s.id])).rows[0].n).toBe(1);
    });
  });

  it('keeps the clusters apart, also for the same pool address', async () => {
    const P = addr('swaps:both-clusters');
    await apply([
      swapExecuted({ pool: P, slot: 1, blockTime: H0 }, { side: 'buy', amountIn: 1000n, fee: 0n, amountOut: 1n, mid: MID_1_5 }),
      swapExecuted({ cluster: 'devnet', pool: P, slot: 1, blockTime: H0 }, { side: 'buy', amountIn: 7n, fee: 0n, amountOut: 1n, mid: MID_1_5 }),
    ]);
    expect((await rollup('volume_daily', 'day_start', P, 'mainnet-beta')).map((r) => r.volume_q32)).toEqual([q(1000n)]);
    expect((await rollup('volume_daily', 'day_start', P, 'devnet')).map((r) => r.volume_q32)).toEqual([q(7n)]);
  });

  it('buckets a swap without block time at 0: in the full history, in no time window', async () => {
    const P = addr('swaps:no-block-time');
    await apply([swapExecuted({ pool: P, slot: 5, blockTime: null }, { side: 'buy', amountIn: 10n, fee: 0n, amountOut: 1n, mid: MID_1_5 })]);
    const { rows } = await db.pool.query('SELECT ts, block_time FROM read.swaps WHERE pool = $1', [P]);
    expect(rows).toEqual([{ ts: '0', block_time: null }]);
    expect((await rollup('fee_rollup_hourly', 'hour_start', P)).map((r) => r.hour_start)).toEqual(['0']);
  });

  it('refuses a swap it cannot apply with a clear error, and writes nothing of its batch', async () => {
    const P = addr('swaps:poison');
    const good = swapExecuted({ pool: P, slot: 1, blockTime: H0 }, { side: 'buy', amountIn: 10n, fee: 1n, amountOut: 1n, mid: MID_1_5 });
    const bad = swapExecuted({ pool: P, slot: 2, blockTime: H0 }, { side: 'buy', amountIn: 10n, fee: 1n, amountOut: 1n, mid: MID_1_5 });
    const inconsistent = { ...bad, data: { ...bad.data, amountInToVault: '5' } };
    await expect(apply([good, inconsistent])).rejects.toThrow(`event ${bad.id}: amounts are inconsistent: amountInToVault 5 + feeRaw 1 != amountIn 10`);
    const overSplit = {
      ...bad,
      data: {
        ...bad.data,
        feeSplit: [
          { recipient: addr('r'), ppm: 800_000 },
          { recipient: addr('s'), ppm: 300_000 },
        ],
      },
    };
    await expect(apply([overSplit])).rejects.toThrow(/fee split weights add up to 1100000 ppm/);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM read.swaps WHERE pool = $1', [P])).rows[0].n).toBe(0);
  });

  describe("a replay's handler (a building build: the swaps alone, running totals at the finish)", () => {
    const REPLAY = 'proj_swaps_v3_replay_test';
    const replay = createSwapsBuildingHandler(quoteIdent(REPLAY));
    const applyReplay = (events: Parameters<typeof applyBatch>[2]) => applyBatch(db.pool, replay, events);
    const rows = async (table: string) => (await db.pool.query(`SELECT * FROM ${quoteIdent(REPLAY)}.${table} ORDER BY 1, 2, 3`)).rows;
    beforeAll(async () => createBuildTables(db.pool, swapsSchemaV3, REPLAY));

    it('writes the swaps with their values and nothing else, counts an event id once, and refuses a changed copy as the live handler does', async () => {
      const P = addr('swaps:replay');
      const s = swapExecuted(
        { pool: P, slot: 800, blockTime: H0 + 10 },
        { side: 'buy', amountIn: 1000n, fee: 10n, amountOut: 600n, mid: MID_1_5, split: [{ recipient: addr('replay-r'), ppm: 1_000_000 }] },
      );
      const t = swapExecuted({ pool: P, slot: 801, blockTime: H0 + 20 }, { side: 'sell', amountIn: 1000n, fee: 10n, amountOut: 1400n, mid: MID_1_5 });
      await applyReplay([poolDiscovered({ pool: P, slot: 799 }), s]);
      await applyReplay([s, t, t]); // a redelivery and a copy in one batch: t once, s not again
      const swaps = await rows('swaps');
      expect(swaps.map((r) => [r.id, r.volume_q32, r.protocol_fee_q32, r.split_recipients])).toEqual([
        // As DESIGN §4 values them: a buy's input is the quote (1000), a sell's is X at mid 1.5 (1500); the fee like the input.
        [s.id, q(1000n), q(10n), [addr('replay-r')]],
        [t.id, q(1500n), q(15n), null],
      ]);
      for (const table of RUNNING_VIEWS) expect({ table, rows: await rows(table) }).toEqual({ table, rows: [] });

      const moved = { ...s, blockTime: H0 + 86_400 + 10 };
      await expect(applyReplay([moved])).rejects.toThrow(new RegExp(`^event ${s.id}: duplicate event id with a different payload: already applied`));
      await expect(applyReplay([s, moved])).rejects.toThrow(`event ${s.id}: duplicate event id with a different payload in one batch`);
      expect(await rows('swaps')).toEqual(swaps);
    });

    it("the finish writes the running totals its swaps give (the derived views' SQL), row for row, with the tables' primary keys; a failed finish fails, the next writes them all", async () => {
      const FINISH = 'proj_swaps_v3_finish_test';
      const S = quoteIdent(FINISH);
      await createBuildTables(db.pool, swapsSchemaV3, FINISH);
      const building = createSwapsBuildingHandler(S);
      const [R1, R2, R3] = ['finish-r1', 'finish-r2', 'finish-r3'].map(addr);
      const events = [];
      let slot = 5000;
      // Two pools on mainnet and one address on both clusters; four UTC days, seconds of one
      // swap and of six (ties on the block time), splits that change weights and recipients, zero fees,
      // unpriced swaps and a swap without a block time (ts 0).
      for (const [cluster, pool] of [
        ['mainnet-beta', addr('finish:p1')],
        ['mainnet-beta', addr('finish:p2')],
        ['devnet', addr('finish:p1')],
      ] as const) {
        for (let i = 0; i < 40; i++) {
          const blockTime = i === 39 ? null : D0 + Math.floor(i / 13) * 86_400 + (i % 13 < 6 ? 100 : 100 + (i % 13));
          const split = [
            null,
            [{ recipient: R1, ppm: 1_000_000 }],
            [
              { recipient: R1, ppm: 250_000 + i },
              { recipient: R2, ppm: 700_000 },
            ],
            [{ recipient: R3, ppm: 1 }],
          ][i % 4];
          events.push(
            swapExecuted(
              { cluster, pool, slot: slot++, blockTime, txIndex: i % 3, ixIndex: 0, innerIndex: i % 2 === 0 ? null : i % 5 },
              {
                side: i % 2 ? 'sell' : 'buy',
                amountIn: 1_000_000n + BigInt(i) * 7919n,
                fee: i % 7 === 0 ? 0n : 3000n + BigInt(i),
                amountOut: 900_000n + BigInt(i),
                mid: i % 9 === 4 ? null : MID_1_5 + BigInt(i),
                split,
              },
            ),
          );
        }
      }
      // A pool whose swaps, in block time order, carry a split again and again, then the same
      // recipients with other weights, the same weights for other recipients, none, and the first
      // again: the finish parses a split once for a run of swaps that carry the same one.
      const runs = [
        ...Array(3).fill([
          { recipient: R1, ppm: 400_000 },
          { recipient: R2, ppm: 600_000 },
        ]),
        ...Array(3).fill([
          { recipient: R1, ppm: 600_000 },
          { recipient: R2, ppm: 400_000 },
        ]),
        ...Array(3).fill([
          { recipient: R3, ppm: 600_000 },
          { recipient: R2, ppm: 400_000 },
        ]),
        null,
        ...Array(2).fill([
          { recipient: R1, ppm: 400_000 },
          { recipient: R2, ppm: 600_000 },
        ]),
      ] as ({ recipient: string; ppm: number }[] | null)[];
      for (const [i, split] of runs.entries())
        events.push(
          swapExecuted(
            { pool: addr('finish:p3'), slot: slot++, blockTime: D0 + 10 * i },
            { side: 'buy', amountIn: 1_000_000n, fee: 3000n + BigInt(i), amountOut: 900_000n, mid: MID_1_5, split },
          ),
        );
      // In an order unlike the chain's: a replay meets late arrivals too.
      const shuffled = events
        .map((e, i) => [(i * 37) % events.length, e] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, e]) => e);
      for (let i = 0; i < shuffled.length; i += 25) await applyBatch(db.pool, building, shuffled.slice(i, i + 25));

      const table = async (name: string) => {
        const columns = RUNNING_TABLE_COLUMNS[name];
        return (await db.pool.query(`SELECT ${columns.join(', ')} FROM ${S}.${name} ORDER BY ${columns.slice(0, 4).join(', ')}`)).rows;
      };
      const derived = async (name: string) => {
        const columns = RUNNING_TABLE_COLUMNS[name];
        const view = runningViewsFromSwaps.find((v) => v.name === name)!;
        return (await db.pool.query(`SELECT ${columns.join(', ')} FROM (${view.select(S)}) v ORDER BY ${columns.slice(0, 4).join(', ')}`)).rows;
      };
      const primaryKeys = async () =>
        (
          await db.pool.query(
            `SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) AS definition FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
              WHERE k.contype = 'p' AND c.relnamespace = $1::regnamespace ORDER BY 1`,
            [FINISH],
          )
        ).rows;
      const keys = await primaryKeys();
      expect(keys.map((k) => k.relname)).toEqual(expect.arrayContaining(Object.keys(RUNNING_TABLE_COLUMNS)));

      // A writer that fails (a row its table refuses) fails the finish instead of leaving it waiting.
      await db.pool.query(`ALTER TABLE ${S}.fee_recipient_running_day ADD CONSTRAINT refuse_all CHECK (swap_count < 0)`);
      await expect(finishSwapsBuild(db.pool as unknown as SqlTx, S, runApart(db.pool))).rejects.toMatchObject({ code: '23514' });
      await db.pool.query(`ALTER TABLE ${S}.fee_recipient_running_day DROP CONSTRAINT refuse_all`);

      await finishSwapsBuild(db.pool as unknown as SqlTx, S, runApart(db.pool));
      for (const name of Object.keys(RUNNING_TABLE_COLUMNS)) {
        const rowsOf = await table(name);
        expect(rowsOf.length).toBeGreaterThan(name === 'fee_recipients' ? 5 : 8);
        expect({ name, rows: rowsOf }).toEqual({ name, rows: await derived(name) });
      }
      // Seconds of several swaps and days of several seconds are there, and the keys are back as they were.
      expect((await table('fee_running_second')).some((r) => Number(r.swap_count) > 1)).toBe(true);
      expect((await table('fee_recipient_running_second')).some((r) => Number(r.swap_count) > 1)).toBe(true);
      expect(await primaryKeys()).toEqual(keys);

      // A finish again (a retried switch) replaces what the tables hold.
      await finishSwapsBuild(db.pool as unknown as SqlTx, S, runApart(db.pool));
      for (const name of Object.keys(RUNNING_TABLE_COLUMNS)) expect({ name, rows: await table(name) }).toEqual({ name, rows: await derived(name) });
    });
  });
});
