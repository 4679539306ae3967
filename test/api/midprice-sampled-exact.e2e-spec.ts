import type { HadronEvent } from '@hadron/contracts';
import { TIMEFRAME_SECONDS, type SampledTimeframe } from '@hadron/contracts/api';
import { mulberry32, shuffle } from '../../apps/projector/test-support/event-generator';
import { MID_A, SOL, USDC } from './support/dataset';
import { addr, midpriceUpdated, poolDiscovered, Q32 } from './support/events';
import { startApiHarness, type ApiHarness } from './support/harness';

/**
 * Sampled midprice history (hours, 5 minutes and minutes from the rollups, raw points at the
 * edges) against a brute force over `read.midprice_points`: for random windows and every sampled
 * timeframe, each bucket's sample is the last point in it by chain position. The points come in
 * bursts inside one second and quiet stretches, some positioned in the chain before points of
 * earlier seconds (so "last by time" and "last by chain position" differ), and arrive in shuffled
 * batches (late arrivals rewrite the rollups' last points).
 */
const DAY = 86_400;
const T0 = 1_763_596_800; // 2025-11-20 00:00 UTC
const NOW = T0 + 3 * DAY;
const POOL = addr('sampled-exact:pool');
const QUOTER = addr('sampled-exact:quoter');
const TIMEFRAMES = Object.keys(TIMEFRAME_SECONDS) as SampledTimeframe[];

function history(random: () => number): HadronEvent[] {
  const out: HadronEvent[] = [];
  let t = T0 + Math.floor(random() * 300);
  let bump = 0;
  while (t < NOW - 60) {
    const e = midpriceUpdated(
      { pool: POOL, blockTime: t, bump: bump++ % 4 },
      MID_A + BigInt(Math.floor(random() * 1e9)),
      Q32 - BigInt(Math.floor(random() * 1e6)),
      QUOTER,
    );
    // One in ten is positioned in the chain up to ~10 minutes before its block time says.
    out.push(random() < 0.1 ? { ...e, slot: e.slot - Math.floor(random() * 2400) } : e);
    t += random() < 0.3 ? 0 : random() < 0.85 ? Math.floor(random() * 200) : Math.floor(random() * 7200);
  }
  return out;
}

describe('sampled midprice history equals the last point of each bucket by chain position (brute force)', () => {
  const random = mulberry32(51);
  const events = history(random);
  let h: ApiHarness;

  beforeAll(async () => {
    const discovered = poolDiscovered(
      { pool: POOL, blockTime: T0 - DAY },
      { tokenX: SOL, tokenY: USDC, authority: addr('sampled-exact:auth'), quotingAuthority: QUOTER, midpriceQ32: MID_A, spreadFactorQ32: Q32 },
    );
    h = await startApiHarness({ now: NOW, events: [discovered] });
  }, 60_000);
  afterAll(async () => h?.close());

  /** The API's counts of per-pool query executions and of their round trips to the database (/metrics). */
  async function queryCounts(): Promise<{ executions: number; roundTrips: number }> {
    const text = (await h.get('/metrics')).text;
    const count = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    return { executions: count('hadron_api_query_executions_total'), roundTrips: count('hadron_api_query_round_trips_total') };
  }

  async function bruteForce(size: number, start: number, end: number) {
    const { rows } = await h.db.pool.query<{ b: string; slot: string; signature: string; m: string; s: string }>(
      `SELECT DISTINCT ON (b) ts - ts % $3 AS b, slot, signature, midprice_q32 AS m, spread_factor_q32 AS s
         FROM read.midprice_points WHERE cluster = 'mainnet-beta' AND pool = $1 AND ts >= $2 AND ts <= $4
        ORDER BY b, slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, id DESC`,
      [POOL, start, size, end],
    );
    return rows.map((r) => ({
      timestamp: Number(r.b),
      slot: Number(r.slot),
      midprice: Number(r.m) / 2 ** 32,
      base_spread_factor: Number(r.s) / 2 ** 32,
      signature: r.signature,
    }));
  }

  /**
   * `count` random windows, every timeframe in turn, against the brute force. `atOnce`: all
   * requests in flight together, so that their queries share round trips to the database
   * (API_QUERY_BATCHES); otherwise one after the other, each query alone.
   */
  async function checkWindows(count: number, atOnce = false, near?: readonly number[]): Promise<number> {
    const windows = Array.from({ length: count }, (_, i) => {
      // 1m, 5m and 1h read their own unit straight (aligned), the rest pick among units.
      const timeframe = TIMEFRAMES[i % TIMEFRAMES.length];
      const size = TIMEFRAME_SECONDS[timeframe];
      // `near`: a window of 1-120 s around a point's time, so that it holds no whole minute and
      // its raw edge often spans a minute's end; otherwise up to ~2 000 buckets, at least a few
      // seconds: windows on and off every level's edges.
      const start = near ? near[Math.floor(random() * near.length)] - Math.floor(random() * 60) : T0 - 600 + Math.floor(random() * 3 * DAY);
      const end = near ? start + Math.floor(random() * 120) : Math.min(NOW, start + 5 + Math.floor(random() * Math.min(2 * DAY, 2000 * size)));
      return { timeframe, size, start, end, url: `/pools/${POOL}/midprice/history?timeframe=${timeframe}&start_time=${start}&end_time=${end}` };
    });
    const answers = atOnce ? await Promise.all(windows.map((w) => h.get(w.url))) : [];
    let buckets = 0;
    for (const [i, w] of windows.entries()) {
      const r = atOnce ? answers[i] : await h.get(w.url);
      expect(r.status).toBe(200);
      const where = `${w.timeframe} [${w.start}, ${w.end}]`;
      const want = await bruteForce(w.size, w.start, w.end);
      expect({ where, data: (r.body as { data: unknown[] }).data }).toEqual({ where, data: want });
      buckets += want.length;
    }
    return buckets;
  }

  it('holds for every timeframe after each of several shuffled batches', async () => {
    shuffle(events, random);
    const batches = 3;
    const size = Math.ceil(events.length / batches);
    for (let b = 0; b < batches; b++) {
      await h.project(events.slice(b * size, (b + 1) * size));
      expect(await checkWindows(40)).toBeGreaterThan(100);
    }
    // The same with the queries sharing round trips: each answer is still exactly its own window's.
    const before = await queryCounts();
    expect(await checkWindows(60, true)).toBeGreaterThan(100);
    const after = await queryCounts();
    expect(after.executions - before.executions).toBe(60);
    expect(after.roundTrips - before.roundTrips).toBeLessThan(20); // not vacuous: they did share
    const n = (await h.db.pool.query('SELECT count(*)::int AS n FROM read.midprice_points WHERE pool = $1', [POOL])).rows[0].n;
    expect(n).toBe(events.length);
  });

  it('holds for windows shorter than a minute or two, across a minute end, answered by raw points and the minute rollup', async () => {
    // After the test above: every point projected. A raw edge inside one minute may be answered
    // by the minute's last point, one across a minute's end may not (half of these windows cross one).
    const { rows } = await h.db.pool.query<{ ts: string }>('SELECT ts FROM read.midprice_points WHERE pool = $1', [POOL]);
    const times = rows.map((r) => Number(r.ts));
    expect(times.length).toBe(events.length);
    expect(await checkWindows(240, false, times)).toBeGreaterThan(120);
  });
});
