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
