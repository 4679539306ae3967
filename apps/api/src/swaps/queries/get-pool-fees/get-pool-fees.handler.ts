import { Inject } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { exactDecimal, q32ToQuoteNumber } from '@hadron/domain';
import type { ApiConfig } from '../../../api.config';
import { intOf } from '../../../database/numeric';
import { ReadDb } from '../../../database/read-db';
import { DataFreshness } from '../../../freshness/data-freshness';
import { poolNotFound } from '../../../http/api-exception.filter';
import { API_CONFIG } from '../../../http/tokens';
import { PoolDirectory } from '../../../pools/pool-directory';
import { planFeeWindow } from './fee-window';
import type { PoolFeesReportDto, RecipientSplitDto } from './get-pool-fees.response.dto';
import { GetPoolFeesQuery } from './get-pool-fees.query';

/** The primary key's order (cluster, pool, ts, id), read backwards: "newest" needs no sort. */
const EDGE_ORDER = 'ts DESC, id DESC';
const EDGE_COLUMNS = 'id, ts, volume_q32, spread_q32, protocol_fee_q32, fee_x_raw, fee_y_raw';
const TOTALS = 'sum(volume_q32) AS v, sum(spread_q32) AS s, sum(protocol_fee_q32) AS f, sum(fee_x_raw) AS fx, sum(fee_y_raw) AS fy';
const RECIPIENT_ROLLUP = `recipient, fee_x_raw_x1e6 AS x, fee_y_raw_x1e6 AS y, fee_value_q32_x1e6 AS v,
           ARRAY[last_slot, last_tx_index, last_ix_index, last_inner_index, last_ppm]::int8[] AS last`;

/**
 * Per-recipient rows of the two minute runs ($5..$8), from read.fee_recipient_minute (whichever
 * swaps version is served: the projector publishes that view for each, see its README).
 */
const RECIPIENT_MINUTES = `
    SELECT ${RECIPIENT_ROLLUP} FROM read.fee_recipient_minute WHERE cluster = $1 AND pool = $2 AND minute_start >= $5 AND minute_start < $6
    UNION ALL
    SELECT ${RECIPIENT_ROLLUP} FROM read.fee_recipient_minute WHERE cluster = $1 AND pool = $2 AND minute_start >= $7 AND minute_start < $8`;

/**
 * One round trip, O(buckets). $3/$4 whole hours, $5..$8 the two runs of whole minutes (rollups,
 * totals and recipients alike), $9..$12 the two partial minutes at the edges (raw swaps, each an
 * index range scan), $13 the swap cap: only that raw part is capped — the newest $13 edge swaps
 * (block time, then id) are aggregated, and `truncated` says whether the edges held more.
 * Fee-split rows of the kept edge swaps are joined by their primary key.
 * Row 1 = totals, further rows = recipients (amounts × 10^6, exact).
 */
const FEES_SQL = `WITH edge_raw AS (
    (SELECT ${EDGE_COLUMNS} FROM read.swaps
      WHERE cluster = $1 AND pool = $2 AND ts >= $9 AND ts < $10 ORDER BY ${EDGE_ORDER} LIMIT $13::int + 1)
    UNION ALL
    (SELECT ${EDGE_COLUMNS} FROM read.swaps
      WHERE cluster = $1 AND pool = $2 AND ts >= $11 AND ts < $12 ORDER BY ${EDGE_ORDER} LIMIT $13::int + 1)
  ), kept AS (
    SELECT * FROM edge_raw ORDER BY ${EDGE_ORDER} LIMIT $13
  ), rolled AS (
    SELECT ${TOTALS}, sum(swap_count) AS n
      FROM read.fee_rollup_hourly WHERE cluster = $1 AND pool = $2 AND hour_start >= $3 AND hour_start < $4
    UNION ALL
    SELECT ${TOTALS}, sum(swap_count)
      FROM read.fee_rollup_minute WHERE cluster = $1 AND pool = $2 AND minute_start >= $5 AND minute_start < $6
    UNION ALL
    SELECT ${TOTALS}, sum(swap_count)
      FROM read.fee_rollup_minute WHERE cluster = $1 AND pool = $2 AND minute_start >= $7 AND minute_start < $8
  ), rollups AS (
    SELECT sum(v) AS v, sum(s) AS s, sum(f) AS f, sum(fx) AS fx, sum(fy) AS fy, sum(n) AS n FROM rolled
  ), raw AS (
    SELECT ${TOTALS}, count(*) AS n FROM kept
  ), shares AS (
    SELECT ${RECIPIENT_ROLLUP} FROM read.fee_recipient_hourly WHERE cluster = $1 AND pool = $2 AND hour_start >= $3 AND hour_start < $4
    UNION ALL ${RECIPIENT_MINUTES}
    UNION ALL
    SELECT s.recipient, s.fee_x_raw_x1e6, s.fee_y_raw_x1e6, s.fee_value_q32_x1e6,
           ARRAY[s.slot, s.tx_index, s.ix_index, s.inner_index, s.ppm]::int8[]
      FROM kept k JOIN read.swap_fee_splits s ON s.cluster = $1 AND s.pool = $2 AND s.ts = k.ts AND s.swap_id = k.id
  )
  SELECT 0 AS kind, NULL::text AS recipient, NULL::int AS ppm,
         (coalesce(h.v, 0) + coalesce(r.v, 0))::text AS volume, (coalesce(h.s, 0) + coalesce(r.s, 0))::text AS spread,
         (coalesce(h.f, 0) + coalesce(r.f, 0))::text AS fee, (coalesce(h.fx, 0) + coalesce(r.fx, 0))::text AS fee_x,
         (coalesce(h.fy, 0) + coalesce(r.fy, 0))::text AS fee_y, (coalesce(h.n, 0) + r.n)::text AS swaps,
         (SELECT count(*) FROM edge_raw) > $13 AS truncated
    FROM rollups h, raw r
  UNION ALL
  SELECT 1, recipient, (max(last))[5]::int, NULL, NULL, sum(v)::text, sum(x)::text, sum(y)::text, NULL, NULL
    FROM shares GROUP BY recipient`;

interface FeesRow {
  kind: number;
  recipient: string | null;
  ppm: number | null;
  volume: string | null;
  spread: string | null;
  fee: string;
  fee_x: string;
  fee_y: string;
  swaps: string | null;
  truncated: boolean | null;
}

@QueryHandler(GetPoolFeesQuery)
export class GetPoolFeesHandler implements IQueryHandler<GetPoolFeesQuery> {
  constructor(
    private readonly db: ReadDb,
    private readonly pools: PoolDirectory,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly freshness: DataFreshness,
  ) {}

  async execute(q: GetPoolFeesQuery): Promise<PoolFeesReportDto> {
    const pool = await this.pools.find(q.cluster, q.address);
    if (!pool) throw poolNotFound();
    // Read before the data: what the query sees is at least this current.
    const asOf = this.freshness.asOf(q.cluster);
    const plan = planFeeWindow(q.interval, q.endTime);
    const [m1, m2] = plan.minutes;
    const [r1, r2] = plan.raw;
    const params = [
      q.cluster,
      q.address,
      plan.hours.from,
      plan.hours.to,
      m1.from,
      m1.to,
      m2.from,
      m2.to,
      r1.from,
      r1.to,
      r2.from,
      r2.to,
      this.config.FEES_SWAP_CAP,
    ];
    const rows = await this.queryFees(params);
    const total = rows.find((r) => r.kind === 0)!;
    const dy = pool.decimalsY;
    const strings = q.rawAmounts === 'string';
    const raw = (exact: string) => (strings ? exact : Number(exact));
    const split: Array<RecipientSplitDto & { key: bigint }> = rows
      .filter((r) => r.kind === 1)
      .map((r) => ({
        key: intOf(r.fee),
        recipient: r.recipient!,
        ppm: r.ppm!,
        fee_usd: Number(exactDecimal(intOf(r.fee), 32, dy + 6)),
        fee_x_raw: raw(exactDecimal(intOf(r.fee_x), 0, 6)),
        fee_y_raw: raw(exactDecimal(intOf(r.fee_y), 0, 6)),
      }));
    // Largest share first, then by recipient: a stable order for clients and tests.
    split.sort((a, b) => (a.key !== b.key ? (a.key > b.key ? -1 : 1) : a.recipient < b.recipient ? -1 : a.recipient > b.recipient ? 1 : 0));
    return {
      interval: q.interval,
      start_time: plan.start,
      end_time: plan.end,
      mint_x: pool.mintX,
      mint_y: pool.mintY,
      totals: {
        volume_usd: q32ToQuoteNumber(intOf(total.volume!), dy),
        spread_usd: q32ToQuoteNumber(intOf(total.spread!), dy),
        protocol_fee_usd: q32ToQuoteNumber(intOf(total.fee), dy),
        protocol_fee_x_raw: strings ? intOf(total.fee_x).toString() : intOf(total.fee_x),
        protocol_fee_y_raw: strings ? intOf(total.fee_y).toString() : intOf(total.fee_y),
        swap_count: Number(total.swaps),
      },
      protocol_fee_split: split.map(({ key: _key, ...s }) => s),
      truncated: total.truncated === true,
      as_of: asOf,
    };
  }

  private queryFees(params: readonly unknown[]): Promise<FeesRow[]> {
    return this.db.query<FeesRow>('api-pool-fees', FEES_SQL, params);
  }
}
