export const VOLUME_TIMEFRAMES = ['24h'] as const;
export type VolumeTimeframe = (typeof VOLUME_TIMEFRAMES)[number];
export const VOLUME_DEFAULT_RANGE_SECONDS = 7 * 86_400;
/** Zero-filled daily buckets per request at most (100 years). */
export const VOLUME_MAX_DAYS = 36_600;

export interface VolumeBucket {
  /** UTC midnight starting the day, Unix seconds. */
  timestamp: number;
  /** Swap volume of the whole UTC day, quote-token units (DESIGN §4). */
  volume: number;
  /** spread + protocol fee of the whole UTC day, quote-token units. */
  fees: number;
}

export interface VolumeHistoryResponse {
  start_time: number;
  end_time: number;
  timeframe: VolumeTimeframe;
  data: VolumeBucket[];
}
