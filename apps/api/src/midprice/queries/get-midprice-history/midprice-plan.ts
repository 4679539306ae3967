import { TIMEFRAME_SECONDS, type SampledTimeframe } from '@hadron/contracts/api';
import { bucketStart, coverWindow, HOUR, MINUTE } from '@hadron/domain';

export interface Range {
  from: number;
  to: number;
}

export interface SampledPlan {
  size: number;
  /** Whole hours (1h… timeframes): the last point of each hour from the hourly rollup. */
  hours: Range;
  /** Whole minutes not covered by hours: the last point of each minute from the minute rollup. */
  minutes: [Range, Range];
  /** Partial minutes at the edges: raw points. */
  raw: [Range, Range];
}

const EMPTY: Range = { from: 0, to: 0 };

/**
 * Which rows answer a sampled query over [start, end] (inclusive). Every timeframe is a multiple
 * of a minute, 1h… of an hour, so the last point of a bucket is the last of the last points of
 * the hours/minutes inside it: the cost is O(buckets), never O(points).
 */
export function planSampled(timeframe: SampledTimeframe, start: number, end: number): SampledPlan {
  const size = TIMEFRAME_SECONDS[timeframe];
  const cover = coverWindow(start, end + 1, size >= HOUR ? [HOUR, MINUTE] : [MINUTE]);
  const range = (r: { from: number; to: number }): Range => ({ from: r.from, to: r.to });
  const hours = cover.runs.filter((r) => r.size === HOUR).map(range);
  const minutes = cover.runs.filter((r) => r.size === MINUTE).map(range);
  return {
    size,
    hours: hours[0] ?? EMPTY,
    minutes: [minutes[0] ?? EMPTY, minutes[1] ?? EMPTY],
    raw: [cover.raw[0] ? range(cover.raw[0]) : EMPTY, cover.raw[1] ? range(cover.raw[1]) : EMPTY],
  };
}

/** Buckets of `size` seconds that [start, end] touches. */
export function bucketCount(size: number, start: number, end: number): number {
  return (bucketStart(end, size) - bucketStart(start, size)) / size + 1;
}
