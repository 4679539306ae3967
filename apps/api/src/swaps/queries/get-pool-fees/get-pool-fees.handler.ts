import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { exactDecimal, q32ToQuoteNumber } from '@hadron/domain';
import { RUNNING_POOL_TOTALS, RUNNING_RECIPIENT_SHARES, runningDiff, runningThrough } from '@hadron/contracts/read/running-totals';
import { batchable } from '../../../database/batched-statement';
import { intOf } from '../../../database/numeric';
import { ReadDb } from '../../../database/read-db';
import { DataFreshness } from '../../../freshness/data-freshness';
import { poolNotFound } from '../../../http/api-exception.filter';
import { PoolDirectory } from '../../../pools/pool-directory';
import { planFeeWindow } from './fee-window';
import type { PoolFeesReportDto, RecipientSplitDto } from './get-pool-fees.response.dto';
import { GetPoolFeesQuery } from './get-pool-fees.query';

const diff = (c: string) => `${runningDiff(c)}::text AS ${c}`;

/**
 * One round trip, O(1) in the window's length and the pool's age: the window [start, end] is the
 * running totals through end + 1 ($5; its day $6) minus those through start ($3; its day $4), for
 * the pool and for each of its fee recipients (swaps v3 running totals, see the projector's
 * swaps.schema.ts; views derived from the swaps while an older build is served). Exact to the
 * atom, no edges and no swap cap. Row 1 = totals, further rows = recipients with a share in the
 * window (amounts × 10^6, exact; `ppm`: of the recipient's latest split swap up to `end`).
 */
const POOL_KEY = 'cluster = $1 AND pool = $2';
const RECIPIENT_KEY = 'cluster = $1 AND pool = $2 AND recipient = r.recipient';
const FEES_SQL = `
  SELECT 0 AS kind, NULL::text AS recipient, NULL::int AS ppm, ${RUNNING_POOL_TOTALS.map(diff).join(', ')}
    FROM (SELECT 1) one ${runningThrough('hi', RUNNING_POOL_TOTALS, 'fee_running', POOL_KEY, '$5', '$6')}
                        ${runningThrough('lo', RUNNING_POOL_TOTALS, 'fee_running', POOL_KEY, '$3', '$4')}
  UNION ALL
  SELECT * FROM (
    SELECT 1, r.recipient, coalesce(his.last_ppm, hid.last_ppm), NULL, NULL, ${RUNNING_RECIPIENT_SHARES.map(diff).join(', ')}
      FROM read.fee_recipients r ${runningThrough('hi', RUNNING_RECIPIENT_SHARES, 'fee_recipient_running', RECIPIENT_KEY, '$5', '$6', ', last_ppm')}
                                 ${runningThrough('lo', RUNNING_RECIPIENT_SHARES, 'fee_recipient_running', RECIPIENT_KEY, '$3', '$4')}
     WHERE r.cluster = $1 AND r.pool = $2) shares
   WHERE swap_count::numeric > 0`;
const FEES = batchable('api-pool-fees', FEES_SQL, ['text', 'text', 'int8', 'int8', 'int8', 'int8']);

/** Totals (kind 0) and recipients (kind 1) share the columns; a recipient's amounts are × 10^6. */
interface FeesRow {
  kind: number;
  recipient: string | null;
  ppm: number | null;
  volume_q32: string | null;
  spread_q32: string | null;
  protocol_fee_q32: string;
  fee_x_raw: string;
  fee_y_raw: string;
  swap_count: string;
}

@QueryHandler(GetPoolFeesQuery)
export class GetPoolFeesHandler implements IQueryHandler<GetPoolFeesQuery> {
  constructor(
    private readonly db: ReadDb,
    private readonly pools: PoolDirectory,
    private readonly freshness: DataFreshness,
  ) {}

  async execute(q: GetPoolFeesQuery): Promise<PoolFeesReportDto> {
    const pool = await this.pools.find(q.cluster, q.address);
    if (!pool) throw poolNotFound();
    // Read before the data: what the query sees is at least this current.
    const asOf = this.freshness.asOf(q.cluster);
    const plan = planFeeWindow(q.interval, q.endTime);
    const rows = await this.queryFees([q.cluster, q.address, plan.lo.at, plan.lo.day, plan.hi.at, plan.hi.day]);
    const total = rows.find((r) => r.kind === 0)!;
    const dy = pool.decimalsY;
    const strings = q.rawAmounts === 'string';
    const raw = (exact: string) => (strings ? exact : Number(exact));
    const split: Array<RecipientSplitDto & { key: bigint }> = rows
      .filter((r) => r.kind === 1)
      .map((r) => ({
        key: intOf(r.protocol_fee_q32),
        recipient: r.recipient!,
        ppm: r.ppm!,
        fee_usd: Number(exactDecimal(intOf(r.protocol_fee_q32), 32, dy + 6)),
        fee_x_raw: raw(exactDecimal(intOf(r.fee_x_raw), 0, 6)),
        fee_y_raw: raw(exactDecimal(intOf(r.fee_y_raw), 0, 6)),
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
        volume_usd: q32ToQuoteNumber(intOf(total.volume_q32!), dy),
        spread_usd: q32ToQuoteNumber(intOf(total.spread_q32!), dy),
        protocol_fee_usd: q32ToQuoteNumber(intOf(total.protocol_fee_q32), dy),
        protocol_fee_x_raw: strings ? intOf(total.fee_x_raw).toString() : intOf(total.fee_x_raw),
        protocol_fee_y_raw: strings ? intOf(total.fee_y_raw).toString() : intOf(total.fee_y_raw),
        swap_count: Number(total.swap_count),
      },
      protocol_fee_split: split.map(({ key: _key, ...s }) => s),
      // Every window is exact (running totals, no raw edges): no swap cap is ever reached.
      truncated: false,
      as_of: asOf,
    };
  }

  private queryFees(params: readonly unknown[]): Promise<FeesRow[]> {
    return this.db.batched<FeesRow>(FEES, params);
  }
}
