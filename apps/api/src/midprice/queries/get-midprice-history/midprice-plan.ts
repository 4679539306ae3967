import { TIMEFRAME_SECONDS, type SampledTimeframe } from '@hadron/contracts/api';
import { coverWindow, HOUR, MINUTE } from '@hadron/domain';

/** The five-minute level (`read.midprice_five_minute`): 5m and 30m are multiples of it, and every timeframe from 1h. */
export const FIVE_MINUTES = 5 * MINUTE;

export interface Range {
  from: number;
  to: number;
}

export interface SampledPlan {
  size: number;
  /**
   * Whole hours (5m… timeframes): from the hourly rollup, the last point of each hour (1h…), or
   * the hour's samples of its 5 or 30 minutes, stored whole on its row (5m, 30m: midprice v6's
   * hour items).
   */
  hours: Range;
  /** Whole 5 minutes not covered by hours (5m… timeframes): the last point of each from the five-minute rollup. */
  fiveMinutes: [Range, Range];
  /** Whole minutes not covered by the above: the last point of each minute from the minute rollup. */
  minutes: [Range, Range];
  /** Partial minutes at the edges: raw points. */
  raw: [Range, Range];
}

const EMPTY: Range = { from: 0, to: 0 };

/**
 * Which rows answer a sampled query over [start, end] (inclusive). Every timeframe is a multiple
 * of a minute, 5m… of 5 minutes, 1h… of an hour, so the last point of a bucket is the last of the
 * last points of the hours/5 minutes/minutes inside it: the cost is O(buckets + edges), never
 * O(points) (a 30m bucket reads 6 rows, not 30).
 */
export function planSampled(timeframe: SampledTimeframe, start: number, end: number): SampledPlan {
  const size = TIMEFRAME_SECONDS[timeframe];
  const sizes = size % FIVE_MINUTES === 0 ? [HOUR, FIVE_MINUTES, MINUTE] : [MINUTE];
  const cover = coverWindow(start, end + 1, sizes);
  const runs = (s: number): Range[] => cover.runs.filter((r) => r.size === s).map((r) => ({ from: r.from, to: r.to }));
  const two = (rs: Range[]): [Range, Range] => {
    if (rs.length > 2) throw new Error(`a window has at most two runs of one size below the largest, got ${rs.length}`);
    return [rs[0] ?? EMPTY, rs[1] ?? EMPTY];
  };
  return {
    size,
    hours: runs(HOUR)[0] ?? EMPTY,
    fiveMinutes: two(runs(FIVE_MINUTES)),
    minutes: two(runs(MINUTE)),
    raw: two(cover.raw.map((r) => ({ from: r.from, to: r.to }))),
  };
}
