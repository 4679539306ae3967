import type { HadronEvent } from '@hadron/contracts';
import { buyA, datasetEvents, FEES_A, H0, MID_A, NOW, POOL_A, R1, R2, SOL, SPLIT_50_50, SPLIT_60_40, SPLIT_A_1H, SPLIT_A_24H, USDC } from './support/dataset';
import { addr, poolDiscovered, Q32, swapExecuted } from './support/events';
import { inject, startApiHarness, type ApiHarness } from './support/harness';
import { ALL_PROJECTIONS, midpriceProjectionV1, swapsProjectionV1 } from '../../apps/projector/src';

/**
 * GET /pools/{address}/fees on a busy pool (DESIGN §5, §6): exact for every window at O(1) cost,
 * from the pool's running totals (swaps v3): a window edge inside a busy minute or second is exact,
 * and nothing is ever truncated.
 *
 * The dataset's NOW = 17:02:05 UTC (H0 = 17:00); interval 1h = [16:02:05, 17:02:05]. Every swap is
 * pool A's buy (support/dataset.ts) on a pool of its own: volume 1, protocol fee 0.001 (1000 Y
 * atoms), spread 0.0015; split 60/40 (R1 600, R2 400 atoms) except the last one, at NOW, 50/50
 * (500 + 500).
 *   16:02:04               1 swap   outside 1h (one second early), inside 24h
 *   16:02:05 … 16:02:59    3 swaps  left partial minute (raw)
 *   16:03 … 16:59         57 swaps  whole minutes, one each at :30
 *   17:00, 17:01          20 swaps  whole minutes, ten each
 *   17:02:00, 17:02:05     2 swaps  right partial minute (raw); the second at NOW
 *   17:02:06               1 swap   after the request time: in no window
 * 1h: 3 + 57 + 20 + 2 = 82 swaps. 24h and all: 83.
 */
const BUSY = addr('pool:busy');

function busyEvents(): HadronEvent[] {
  const buy = (at: number, split = SPLIT_60_40, bump = 0) => swapExecuted({ pool: BUSY, blockTime: at, bump }, buyA(split));
  const events: HadronEvent[] = [
    poolDiscovered(
      { pool: BUSY, blockTime: NOW - 10 * 86_400 },
      { tokenX: SOL, tokenY: USDC, authority: addr('busy:auth'), quotingAuthority: addr('busy:quoter'), midpriceQ32: MID_A, spreadFactorQ32: Q32 },
    ),
  ];
  events.push(buy(H0 - 3600 + 124)); // 16:02:04
  for (const s of [125, 150, 179]) events.push(buy(H0 - 3600 + s)); // 16:02:05, :30, :59
  for (let m = 3; m < 60; m++) events.push(buy(H0 - 3600 + m * 60 + 30));
  for (let m = 0; m < 2; m++) for (let i = 0; i < 10; i++) events.push(buy(H0 + m * 60 + i * 5, SPLIT_60_40, i));
  events.push(buy(H0 + 120), buy(NOW, SPLIT_50_50, 1), buy(NOW + 1));
  return events;
}

const totals = (n: number) => ({
  volume_usd: n,
  spread_usd: Number((0.0015 * n).toFixed(6)),
  protocol_fee_usd: Number((0.001 * n).toFixed(6)),
  protocol_fee_x_raw: 0,
  protocol_fee_y_raw: 1000 * n,
  swap_count: n,
});
/** n swaps of which the last is 50/50, the others 60/40. */
const split = (n: number) => [
  { recipient: R1, ppm: 500_000, fee_usd: (600 * (n - 1) + 500) / 1e6, fee_x_raw: 0, fee_y_raw: 600 * (n - 1) + 500 },
  { recipient: R2, ppm: 500_000, fee_usd: (400 * (n - 1) + 500) / 1e6, fee_x_raw: 0, fee_y_raw: 400 * (n - 1) + 500 },
];

describe('GET /pools/:address/fees on a busy pool', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await startApiHarness({ now: NOW, events: busyEvents() });
  });
  afterAll(async () => h?.close());

  const fees = async (qs: string, app = h.app) => {
    const r = await inject(app, `/pools/${BUSY}/fees${qs}`);
    expect(r.status).toBe(200);
    return r.body;
  };

  it('1h holds 82 swaps, 60 of them in the leading edge hour: exact and not truncated', async () => {
    expect(await fees('?interval=1h')).toMatchObject({
      start_time: NOW - 3600,
      end_time: NOW,
      totals: totals(82),
      protocol_fee_split: split(82),
      truncated: false,
    });
  });

  it.each(['24h', '7d', 'all'] as const)('%s: 83 swaps, exact (the swap one second after the request time is in no window)', async (interval) => {
    expect(await fees(`?interval=${interval}`)).toMatchObject({ totals: totals(83), protocol_fee_split: split(83), truncated: false });
  });

  it('edges inside busy seconds are exact: windows ending at each second of 17:00:00–17:00:45 count exactly the swaps up to it', async () => {
    // 10 swaps at 17:00:00, :05, … :45 and 10 more at 17:01:00 … :45: a window's edge can fall
    // between any two of them. `1h` ending at 17:00:00 + k: the swaps from 16:00:00 + k on.
    for (const k of [0, 4, 5, 6, 44, 45]) {
      const end = H0 + k;
      const app = await h.startApp({}, end);
      const inWindow = busyEvents().filter((e) => e.type === 'SwapExecuted' && e.blockTime! >= end - 3600 && e.blockTime! <= end).length;
      expect((await inject(app, `/pools/${BUSY}/fees?interval=1h`)).body.totals.swap_count).toBe(inWindow);
    }
  });
});

describe('GET /pools/:address/fees while the served swaps build is still v1 (in-place upgrade under way)', () => {
  let h: ApiHarness;
  beforeAll(async () => {
    const [pools] = ALL_PROJECTIONS;
    h = await startApiHarness({ now: NOW, events: datasetEvents(), projections: [pools, swapsProjectionV1, midpriceProjectionV1] });
  });
  afterAll(async () => h?.close());

  it('answers exactly from the v1 build (no fee_recipient_minute table: the projector serves that view derived from its swaps)', async () => {
    const served = await h.db.pool.query("SELECT version, schema_name FROM projector.projection_builds WHERE projection = 'swaps' AND status = 'active'");
    expect(served.rows).toHaveLength(1);
    expect(served.rows[0].version).toBe(1);
    expect((await h.db.pool.query('SELECT to_regclass($1) AS t', [`"${served.rows[0].schema_name}".fee_recipient_minute`])).rows[0].t).toBeNull();
    // The API's one query reads the same view names as with v2 (no fallback of its own).
    expect((await h.db.pool.query("SELECT relkind FROM pg_class WHERE oid = to_regclass('read.fee_recipient_minute')")).rows[0].relkind).toBe('v');
    for (const [interval, split] of [
      ['1h', SPLIT_A_1H],
      ['24h', SPLIT_A_24H],
    ] as const) {
      const r = await h.get(`/pools/${POOL_A}/fees?interval=${interval}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ totals: FEES_A[interval], protocol_fee_split: split, truncated: false });
    }
  });
});
