export const VOLUME_TIMEFRAMES = ['24h'] as const;
export type VolumeTimeframe = (typeof VOLUME_TIMEFRAMES)[number];
export const VOLUME_DEFAULT_RANGE_SECONDS = 7 * 86_400;
/** Zero-filled daily buckets per request at most (100 years). */
export const VOLUME_MAX_DAYS = 36_600;
