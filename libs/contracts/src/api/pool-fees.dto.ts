import type { AsOf, RawAmount } from './common.dto';

export const FEE_INTERVALS = ['1h', '24h', '7d', '30d', 'all'] as const;
export type FeeInterval = (typeof FEE_INTERVALS)[number];
export const FEE_DEFAULT_INTERVAL: FeeInterval = '24h';
/** Window length in seconds; `all` starts at 0. */
export const FEE_INTERVAL_SECONDS: Record<Exclude<FeeInterval, 'all'>, number> = {
  '1h': 3_600,
  '24h': 86_400,
  '7d': 604_800,
  '30d': 2_592_000,
};

export interface FeeTotals {
  volume_usd: number;
  spread_usd: number;
  protocol_fee_usd: number;
  protocol_fee_x_raw: RawAmount;
  protocol_fee_y_raw: RawAmount;
  swap_count: number;
}

export interface RecipientSplit {
  recipient: string;
  ppm: number;
  fee_usd: number;
  /** May be fractional: a recipient's share is fee × ppm / 10^6 atoms (exact decimal string with `raw_amounts=string`). */
  fee_x_raw: number | string;
  fee_y_raw: number | string;
}

export interface PoolFeesReport {
  interval: FeeInterval;
  start_time: number;
  end_time: number;
  mint_x: string | null;
  mint_y: string | null;
  totals: FeeTotals;
  protocol_fee_split: RecipientSplit[];
  truncated: boolean;
  /** Added to the spec's shape: how current the report is (see AsOf); `end_time` stays the request time. */
  as_of: AsOf;
}
