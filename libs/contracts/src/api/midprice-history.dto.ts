export const MIDPRICE_TIMEFRAMES = ['1m', '5m', '30m', '1h', '2h', '4h', '12h', '24h', 'raw'] as const;
export type MidpriceTimeframe = (typeof MIDPRICE_TIMEFRAMES)[number];
export type SampledTimeframe = Exclude<MidpriceTimeframe, 'raw'>;
export const MIDPRICE_DEFAULT_TIMEFRAME: MidpriceTimeframe = '1h';
export const TIMEFRAME_SECONDS: Record<SampledTimeframe, number> = {
  '1m': 60,
  '5m': 300,
  '30m': 1_800,
  '1h': 3_600,
  '2h': 7_200,
  '4h': 14_400,
  '12h': 43_200,
  '24h': 86_400,
};
export const MIDPRICE_DEFAULT_RANGE_SECONDS = 86_400;
export const MIDPRICE_DEFAULT_LIMIT = 200;
export const MIDPRICE_MAX_LIMIT = 1_000;
/**
 * Sampled modes answer at most this many buckets (counted from the later of start_time and the
 * pool's first recorded hour): a larger range is a 400 asking for a narrower range or a larger
 * timeframe. 100,000 one-minute buckets are 69 days; one-hour buckets, 11 years.
 */
export const MIDPRICE_MAX_BUCKETS = 100_000;
