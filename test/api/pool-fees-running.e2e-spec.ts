import { QueryBus } from '@nestjs/cqrs';
import type { FeeSplitRecipient, HadronEvent } from '@hadron/contracts';
import type { FeeInterval } from '@hadron/contracts/api';
import { exactDecimal, q32ToQuoteNumber } from '@hadron/domain';
import { mulberry32, shuffle } from '../../apps/projector/test-support/event-generator';
import { GetPoolFeesQuery } from '../../apps/api/src/swaps/queries/get-pool-fees/get-pool-fees.query';
import { ReadDb } from '../../apps/api/src/database/read-db';
import { MID_A, R1, R2, R3, SOL, USDC } from './support/dataset';
import { addr, poolDiscovered, Q32, swapExecuted, type SwapSpec } from './support/events';
import { startApiHarness, type ApiHarness } from './support/harness';
import { PostgresEventLogConsumer } from '@hadron/platform/event-log/postgres/postgres-event-log';
import { BuildRegistry } from '../../apps/projector/src/builds/build-registry';
import { swapsProjection } from '../../apps/projector/src/projections/swaps/swaps.projection';
import { RUNNING_TABLE_COLUMNS } from '../../apps/projector/src/projections/swaps/swaps.schema';
import { rebuildProjection } from '../../apps/projector/src/replay/rebuild';
import { quoteIdent } from '../../apps/projector/src/sql/identifiers';
import { testLog } from '../../apps/projector/test-support/runner-harness';

/**
 * Fees from running totals (swaps v3) against a brute-force sum over the raw swaps, for random
 * windows, while swaps keep arriving late: the log gets a chronological first pass with holes,
 * then the holes in shuffled batches (gap fills, an out-of-order backfill), some days before
 * swaps already applied. After every batch, every sampled window must equal the brute force
 * over `read.swaps` / `read.swap_fee_splits` (the facts, not the running totals) to the atom.
 * Then a replay of the same log (late arrivals and all) into a new build, which writes the
 * swaps alone and the running totals once caught up, must end with the same tables.
 */
const DAY = 86_400;
const T0 = 1_763_596_800; // 2025-11-20 00:00 UTC
const DAYS = 4;
const NOW = T0 + DAYS * DAY;

const P1 = addr('running:pool:1');
const P2 = addr('running:pool:2');
const SPLITS: Array<FeeSplitRecipient[] | null> = [
  null,
  [{ recipient: R1, ppm: 1_000_000 }],
  [
    { recipient: R1, ppm: 600_000 },
    { recipient: R2, ppm: 400_000 },
  ],
  [
    { recipient: R2, ppm: 300_000 },
    { recipient: R3, ppm: 500_000 },
  ],
];

interface Placed {
  cluster: 'mainnet-beta' | 'devnet';
  pool: string;
  at: number | null;
  event: HadronEvent;
}

function history(random: () => number): Placed[] {
  const out: Placed[] = [];
  const spec = (): SwapSpec => {
    const sell = random() < 0.4;
    const amountIn = BigInt(1 + Math.floor(random() * 5_000_000_000));
    const fee = random() < 0.1 ? 0n : amountIn / BigInt(200 + Math.floor(random() * 800));
    return {
      mintX: SOL.mint,
      mintY: USDC.mint,
      decimalsX: 9,
      decimalsY: 6,
      side: sell ? 'sell' : 'buy',
      amountIn,
      fee,
      amountOut: BigInt(Math.floor(random() * 1e9)),
      midQ32: random() < 0.05 ? null : MID_A + BigInt(Math.floor((random() - 0.5) * 1e8)),
      split: SPLITS[Math.floor(random() * SPLITS.length)],
    };
  };
  for (const [cluster, pool] of [
    ['mainnet-beta', P1],
    ['mainnet-beta', P2],
    ['devnet', P1], // the same address on the other cluster: never mixed
  ] as const) {
    let t = T0 + Math.floor(random() * 600);
    let bump = 0;
    while (t < NOW - 60) {
      // Bursts inside one second, quiet stretches of minutes to hours (so days and seconds both have gaps).
      const at = t;
      out.push({ cluster, pool, at, event: swapExecuted({ cluster, pool, blockTime: at, bump: bump++ % 4 }, spec()) });
      t += random() < 0.3 ? 0 : random() < 0.8 ? Math.floor(random() * 900) : Math.floor(random() * 20_000);
    }
    // Swaps without block time: bucketed at 0, only in `all`.
    for (let i = 0; i < 2; i++) out.push({ cluster, pool, at: null, event: swapExecuted({ cluster, pool, blockTime: null, bump: i }, spec()) });
  }
  return out;
}

const INTERVALS: FeeInterval[] = ['1h', '24h', '7d', '30d', 'all'];

describe('fees from running totals equal a brute-force sum over the swaps, for random windows, with late arrivals', () => {
  const random = mulberry32(14);
  const placed = history(random);
  let h: ApiHarness;
  let bus: QueryBus;

  beforeAll(async () => {
    const pools = [
      ['mainnet-beta', P1],
      ['mainnet-beta', P2],
      ['devnet', P1],
    ] as const;
    const discovered = pools.map(([cluster, pool]) =>
      poolDiscovered(
        { cluster, pool, blockTime: T0 - DAY },
        { tokenX: SOL, tokenY: USDC, authority: addr('running:auth'), quotingAuthority: addr('running:quoter'), midpriceQ32: MID_A, spreadFactorQ32: Q32 },
      ),
    );
    h = await startApiHarness({ now: NOW, events: discovered });
    bus = h.app.get(QueryBus);
  }, 60_000);
  afterAll(async () => h?.close());

  /** The window's report as the API computes it, amounts as decimal strings. */
  const report = (cluster: Placed['cluster'], pool: string, interval: FeeInterval, end: number) =>
    bus.execute(new GetPoolFeesQuery(cluster, pool, interval, end, 'string'));

  /** The same report summed from the facts. */
  async function bruteForce(cluster: string, pool: string, interval: FeeInterval, end: number) {
    const start = interval === 'all' ? 0 : Math.max(0, end - { '1h': 3600, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY }[interval]);
    const [t] = (
      await h.db.pool.query(
        `SELECT coalesce(sum(volume_q32), 0)::text AS v, coalesce(sum(spread_q32), 0)::text AS s, coalesce(sum(protocol_fee_q32), 0)::text AS f,
                coalesce(sum(fee_x_raw), 0)::text AS fx, coalesce(sum(fee_y_raw), 0)::text AS fy, count(*)::int AS n
           FROM read.swaps WHERE cluster = $1 AND pool = $2 AND ts >= $3 AND ts <= $4`,
        [cluster, pool, start, end],
      )
    ).rows;
    const split = (
      await h.db.pool.query(
        `SELECT recipient, sum(fee_x_raw_x1e6)::text AS x, sum(fee_y_raw_x1e6)::text AS y, sum(fee_value_q32_x1e6)::text AS v,
                (array_agg(ppm ORDER BY ts DESC, slot DESC, tx_index DESC, ix_index DESC, inner_index DESC))[1] AS ppm
           FROM read.swap_fee_splits WHERE cluster = $1 AND pool = $2 AND ts >= $3 AND ts <= $4 GROUP BY recipient`,
        [cluster, pool, start, end],
      )
    ).rows.map((r) => ({
      recipient: r.recipient,
      ppm: r.ppm,
      fee_usd: Number(exactDecimal(BigInt(r.v), 32, 6 + 6)),
      fee_x_raw: exactDecimal(BigInt(r.x), 0, 6),
      fee_y_raw: exactDecimal(BigInt(r.y), 0, 6),
    }));
    return {
      start_time: start,
      totals: {
        volume_usd: q32ToQuoteNumber(BigInt(t.v), 6),
        spread_usd: q32ToQuoteNumber(BigInt(t.s), 6),
        protocol_fee_usd: q32ToQuoteNumber(BigInt(t.f), 6),
        protocol_fee_x_raw: t.fx,
        protocol_fee_y_raw: t.fy,
        swap_count: t.n,
      },
      split: split.sort((a, b) => a.recipient.localeCompare(b.recipient)),
    };
  }

  /**
   * `count` random windows (and the day edges) over every pool: the API's answer equals the brute
   * force. `atOnce`: all queries in flight together, so that they share round trips to the
   * database (API_QUERY_BATCHES); otherwise one after the other, each alone.
   */
  async function checkWindows(count: number, atOnce = false): Promise<number> {
    let nonEmpty = 0;
    const ends = [T0 + DAY - 1, T0 + DAY, T0 + 2 * DAY - 1, NOW, T0 - 1];
    for (let i = 0; i < count; i++) ends.push(T0 - 3600 + Math.floor(random() * (DAYS * DAY + 7200)));
    const windows = ends.map((end) => {
      const [cluster, pool] = (
        [
          ['mainnet-beta', P1],
          ['mainnet-beta', P2],
          ['devnet', P1],
        ] as const
      )[Math.floor(random() * 3)];
      return { cluster, pool, interval: INTERVALS[Math.floor(random() * INTERVALS.length)], end };
    });
    const answers = atOnce ? await Promise.all(windows.map((w) => report(w.cluster, w.pool, w.interval, w.end))) : [];
    for (const [i, { cluster, pool, interval, end }] of windows.entries()) {
      const got = atOnce ? answers[i] : await report(cluster, pool, interval, end);
      const want = await bruteForce(cluster, pool, interval, end);
      const where = `${cluster} ${pool} ${interval} ending ${end}`;
      expect({ where, start_time: got.start_time, totals: got.totals, truncated: got.truncated }).toEqual({
        where,
        start_time: want.start_time,
        totals: want.totals,
        truncated: false,
      });
      expect({ where, split: [...got.protocol_fee_split].sort((a, b) => a.recipient.localeCompare(b.recipient)) }).toEqual({ where, split: want.split });
      if (want.totals.swap_count > 0) nonEmpty++;
    }
    return nonEmpty;
  }

  it('holds through a chronological first pass with holes, then every hole filled late in shuffled batches', async () => {
    // First pass: 70 % of the swaps, in chain order (a backfill that missed some transactions).
    const late = placed.filter(() => random() < 0.3);
    const lateSet = new Set(late);
    const first = placed.filter((p) => !lateSet.has(p)).sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
    for (let i = 0; i < first.length; i += 150) await h.project(first.slice(i, i + 150).map((p) => p.event));
    expect(await checkWindows(40)).toBeGreaterThan(10);

    // The holes, in shuffled batches: each may be days before swaps already applied, or across days.
    shuffle(late, random);
    const batches = 4;
    const size = Math.ceil(late.length / batches);
    for (let b = 0; b < batches; b++) {
      await h.project(late.slice(b * size, (b + 1) * size).map((p) => p.event));
      expect(await checkWindows(25)).toBeGreaterThan(5);
    }
    // The same with the queries sharing round trips: each answer is still exactly its own window's.
    const stats = h.app.get(ReadDb).batchStats;
    const before = { ...stats };
    expect(await checkWindows(60, true)).toBeGreaterThan(10);
    expect(stats.executions - before.executions).toBe(65);
    expect(stats.roundTrips - before.roundTrips).toBeLessThan(20); // not vacuous: they did share
    // Every swap is in: `all` at NOW counts all of each pool's swaps.
    const n = (await h.db.pool.query('SELECT count(*)::int AS n FROM read.swaps')).rows[0].n;
    expect(n).toBe(placed.length);
  }, 240_000);

  it('a replay of that log into a new build (the swaps alone, running totals written once caught up) has the same running totals, row for row', async () => {
    const served = (await new BuildRegistry(h.db.pool).active('swaps'))!;
    const result = await rebuildProjection(swapsProjection, {
      pool: h.db.pool,
      consumerFactory: () => new PostgresEventLogConsumer(h.db.pool, h.db.url, testLog, 200),
      log: testLog,
      maxBatchSize: 97,
      keepRetiredBuilds: 1,
    });
    expect(result.previous?.schemaName).toBe(served.schemaName);
    for (const [table, columns] of Object.entries(RUNNING_TABLE_COLUMNS)) {
      const rows = async (schema: string) =>
        (await h.db.pool.query(`SELECT ${columns.join(', ')} FROM ${quoteIdent(schema)}.${table} ORDER BY ${columns.slice(0, 4).join(', ')}`)).rows;
      const live = await rows(served.schemaName);
      expect(live.length).toBeGreaterThan(0);
      expect({ table, rows: await rows(result.build.schemaName) }).toEqual({ table, rows: live });
    }
    // The API now reads the replayed build: still equal to the brute force.
    expect(await checkWindows(30)).toBeGreaterThan(5);
  }, 120_000);
});
