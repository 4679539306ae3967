import type { Pool } from 'pg';
import { q32JsonSql } from '@hadron/contracts/read/midprice-sample-json';
import { ALL_PROJECTIONS, runningViewsFromSwaps } from '../../projector/src';

/**
 * A generated read-model dataset, written set-based (generate_series) straight into the active
 * projector builds (the bench measures the API, not the projector). Shape:
 * - 1000 mainnet-beta + 200 devnet pools;
 * - BIG (mainnet pool 1): 1,000,000 swaps and 1,000,000 midprice points, one every 3 s (~35 days);
 * - SMALL (mainnet pool 2): 10,000 of each over the same ~35 days (one every 300 s): the same
 *   buckets with 100× fewer rows, so fees / sampled-midprice latency on SMALL vs BIG shows
 *   whether cost grows with rows or with buckets;
 * - with `huge` (BENCH_API_HUGE=1), HUGE (mainnet pool 3): 10,000,000 of each over the same
 *   ~35 days (ten every 3 s), for DESIGN §6's "flat from 10⁴ to 10⁷"; generation takes about
 *   seven times as long and the database grows sixfold (18 GB);
 * - every other pool: 500 swaps over the last 7 days and 200 points over the last day.
 * A third of the swaps carry a two-recipient fee split. Rollups are derived from the rows.
 * It follows the physical tables of the projector's current versions (swaps v3 with its running
 * totals, midprice v9 (v7's columns) with its five-minute last points, their stored tail and sample JSON, its hour items, its points' base58
 * signatures and numbers' JSON (q32JsonSql, the projector's q32Json in Postgres), pools v1) — the only place outside the projector that writes
 * them: a change of those tables needs a change here. The midprice last points are written by the projector's finish of a replay.
 * The points go in by time across pools (ts, then pool), as the projector writes them, live or
 * replaying (its COPY follows the log): a pool's points lie on as many heap pages as it has points,
 * not on a few. Written pool by pool, as before 2026-12-02, a raw page of 200 points read 38
 * buffers instead of 231, and Postgres answered it in half the time (docs/performance-record.md).
 */
/** Rows per pool and the seconds between them (a fraction: several rows share a second). */
export const BIG = { count: 1_000_000, step: 3 };
export const SMALL = { count: 10_000, step: 300 };
export const HUGE = { count: 10_000_000, step: 0.3 };
export const MAINNET_POOLS = 1000;
export const DEVNET_POOLS = 200;

/** Valid base58 of 32 bytes (the API answers 400 to anything else): 'Poo', the index with z for 0, x padding (43 characters). */
export const poolAddress = (i: number): string => `Poo${String(i).padStart(6, '0').replace(/0/g, 'z')}${'x'.repeat(34)}`;
/** The same address in SQL, for index expression `i`. */
const sqlPoolAddress = (i: string): string => `'Poo' || translate(lpad(${i}::text, 6, '0'), '0', 'z') || repeat('x', 34)`;
export const BIG_POOL = poolAddress(1);
export const SMALL_POOL = poolAddress(2);
export const HUGE_POOL = poolAddress(3);

export interface DatasetStats {
  pools: number;
  swaps: number;
  points: number;
  seconds: number;
}

export async function generateDataset(
  pool: Pool,
  schemas: { pools: string; swaps: string; midprice: string },
  now: number,
  log: (m: string) => void,
  huge = false,
): Promise<DatasetStats> {
  const P = schemas.pools;
  const S = schemas.swaps;
  const M = schemas.midprice;
  const started = Date.now();
  const step = async (what: string, sql: string, params: unknown[] = []) => {
    const t = Date.now();
    const r = await pool.query(sql, params);
    log(`  ${what}: ${r.rowCount ?? 0} rows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  const total = MAINNET_POOLS + DEVNET_POOLS;
  await pool.query(`SET synchronous_commit = off`);
  await step(
    'pools',
    `INSERT INTO ${P}.pools (cluster, pool, program_id, program_version, seed, authority, oracle, token_x_mint, token_x_symbol,
        token_x_name, token_x_decimals, token_x_icon, token_y_mint, token_y_symbol, token_y_name, token_y_decimals, token_y_icon,
        vault_x, vault_y, pool_state, pool_state_raw, oracle_mode, spread_config_initialized, has_pool_fee, fee_config, fee_ppm,
        fee_recipient, config_slot, quoting_authority, midprice_q32, spread_factor_q32, vault_x_amount, vault_y_amount)
     SELECT CASE WHEN i <= ${MAINNET_POOLS} THEN 'mainnet-beta' ELSE 'devnet' END,
            ${sqlPoolAddress('i')}, 'Prog1111111111111111111111111111111111111111', 1, i,
            'Auth' || (i % 20) || repeat('a', 38), 'Orcl' || i || repeat('o', 36),
            'MintX' || i || repeat('m', 35), 'TK' || i, 'Token ' || i, (ARRAY[9, 6, 5])[1 + i % 3], '',
            CASE WHEN i % 5 = 0 THEN 'So11111111111111111111111111111111111111112' ELSE 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' END,
            CASE WHEN i % 5 = 0 THEN 'SOL' ELSE 'USDC' END, CASE WHEN i % 5 = 0 THEN 'Wrapped SOL' ELSE 'USD Coin' END,
            CASE WHEN i % 5 = 0 THEN 9 ELSE 6 END, '',
            'VltX' || i || repeat('v', 36), 'VltY' || i || repeat('w', 36),
            (ARRAY['Initialized', 'Initialized', 'Initialized', 'Paused', 'RejectSwaps'])[1 + i % 5], 1, 0, true, false,
            'FeeCfg111111111111111111111111111111111111', 1000, 'FeeRcp111111111111111111111111111111111111', 1000,
            'Quot' || (i % 7) || repeat('q', 38), 1073741824 + i * 1000, 4294967296 - 262144,
            1000000000000::numeric + i * 1000000000::numeric, 50000000000::numeric + i * 100000000::numeric
       FROM generate_series(1, ${total}) i`,
  );
  // Per-pool series: (pool number, swaps, tenths of a second between swaps, points, tenths between points).
  const hugeCase = (n: number) => (huge ? `WHEN i = 3 THEN ${n}` : '');
  const tenths = (seconds: number) => Math.round(seconds * 10);
  const series = `(SELECT i, CASE WHEN i = 1 THEN ${BIG.count} WHEN i = 2 THEN ${SMALL.count} ${hugeCase(HUGE.count)} ELSE 500 END AS swaps,
                          CASE WHEN i = 1 THEN ${tenths(BIG.step)} WHEN i = 2 THEN ${tenths(SMALL.step)} ${hugeCase(tenths(HUGE.step))} ELSE 12090 END AS swap_step,
                          CASE WHEN i = 1 THEN ${BIG.count} WHEN i = 2 THEN ${SMALL.count} ${hugeCase(HUGE.count)} ELSE 200 END AS points,
                          CASE WHEN i = 1 THEN ${tenths(BIG.step)} WHEN i = 2 THEN ${tenths(SMALL.step)} ${hugeCase(tenths(HUGE.step))} ELSE 4320 END AS point_step
                     FROM generate_series(1, ${total}) i)`;
  /** The g-th row's second (g from 1), newest first. */
  const ts = (step: string) => `(${now}::int8 - 1 - ((g - 1)::int8 * ${step}) / 10)`;
  await step(
    'swaps',
    `INSERT INTO ${S}.swaps (cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, side, trader, amount_in,
        amount_in_to_vault, amount_out, fee_x_raw, fee_y_raw, decimals_x, decimals_y, midprice_q32, volume_q32, spread_q32,
        protocol_fee_q32, priced, split_tracked, split_recipients, split_ppm)
     SELECT cluster, pool, ts, 'sw:' || n || ':' || g, ts, (ts - 1700000000) * 3, 0, 1, -1, 'Sig' || n || 'x' || g || repeat('s', 60), 'buy',
            'Trader1111111111111111111111111111111111111', a, a - f, o, 0, f, 9, 6, 1073741824,
            a * 4294967296, (a - f) * 4294967296 - o * 1073741824, f * 4294967296, true, g % 3 = 0,
            CASE WHEN g % 3 = 0 THEN ARRAY['Rcpt1111111111111111111111111111111111111111', 'Rcpt2222222222222222222222222222222222222222'] END,
            CASE WHEN g % 3 = 0 THEN ARRAY[600000, 400000] END
       FROM (SELECT CASE WHEN s.i <= ${MAINNET_POOLS} THEN 'mainnet-beta' ELSE 'devnet' END AS cluster,
                    ${sqlPoolAddress('s.i')} AS pool, s.i AS n, g,
                    ${ts('s.swap_step')} AS ts,
                    (1000000 + (g % 1000) * 1000)::numeric AS a,
                    div((1000000 + (g % 1000) * 1000)::numeric, 1000) AS f,
                    div(div((1000000 + (g % 1000) * 1000)::numeric * 999, 1000) * 4 * 998, 1000) AS o
               FROM ${series} s, generate_series(1, s.swaps) g) x`,
  );
  // Running totals (swaps v3; its hourly rollup and daily volume are views of them or of the swaps):
  // the same rows the projector writes, computed set-based from the swaps.
  for (const view of runningViewsFromSwaps) await step(view.name, `INSERT INTO ${S}.${view.name} SELECT * FROM (${view.select(S)}) v`);
  await step(
    'midprice_points',
    `INSERT INTO ${M}.midprice_points (cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, instruction,
        sequence, midprice_q32, spread_factor_q32, midprice_json, spread_factor_json)
     SELECT CASE WHEN s.i <= ${MAINNET_POOLS} THEN 'mainnet-beta' ELSE 'devnet' END, ${sqlPoolAddress('s.i')},
            ${ts('s.point_step')}, 'mp:' || s.i || ':' || g, ${ts('s.point_step')},
            (${ts('s.point_step')} - 1700000000) * 3 + 1, 0, 0, -1, 'Sig' || translate(s.i || 'm' || g, '0', 'z') || repeat('t', 60),
            'UpdateMidpriceAndBaseSpread', g, q.mid, q.spread, ${q32JsonSql('q.mid')}, ${q32JsonSql('q.spread')}
       FROM ${series} s, generate_series(1, s.points) g, LATERAL (SELECT (1073741824 + (g % 977) * 1000)::numeric AS mid, (4294967296 - 262144)::numeric AS spread) q
      ORDER BY 3, 2`,
  );
  // The last points of each minute, 5 minutes and hour, and each hour's items (midprice v6 on): the projector's own finish of a replay.
  const t = Date.now();
  await ALL_PROJECTIONS.find((d) => d.name === 'midprice')!.finishBuild!(pool as never, M, () => Promise.reject(new Error('not used')));
  log(`  midprice last points and hour items (the projector's finish): ${((Date.now() - t) / 1000).toFixed(1)} s`);
  // What autovacuum does to insert-only tables soon after (midprice v9's points within a minute):
  // statistics, and every page marked all-visible, so that index-only scans skip the table.
  await step('vacuum', `VACUUM (ANALYZE)`);
  const [{ swaps, points }] = (
    await pool.query<{ swaps: string; points: string }>(
      `SELECT (SELECT count(*) FROM ${S}.swaps) AS swaps, (SELECT count(*) FROM ${M}.midprice_points) AS points`,
    )
  ).rows;
  return { pools: total, swaps: Number(swaps), points: Number(points), seconds: (Date.now() - started) / 1000 };
}
