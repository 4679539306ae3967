import { bucketStart, DAY } from '@hadron/domain';
import { FEE_INTERVAL_SECONDS, type FeeInterval } from '@hadron/contracts/api';

/** A point of the running totals: everything with ts < `at`, read as its UTC `day`'s row before it plus the day rows before that. */
export interface RunningPoint {
  at: number;
  day: number;
}

export interface FeeWindowPlan {
  start: number;
  end: number;
  /** The window [start, end] (inclusive) = running totals through `hi` minus those through `lo`. */
  lo: RunningPoint;
  hi: RunningPoint;
}

const point = (at: number): RunningPoint => ({ at, day: bucketStart(at, DAY) });

/**
 * The window `[end − length, end]` (inclusive, DESIGN §5; `all` starts at 0) as two points of the
 * pool's running totals (swaps v3): exact for any window, O(1) in its length and the pool's age.
 */
export function planFeeWindow(interval: FeeInterval, end: number): FeeWindowPlan {
  const start = interval === 'all' ? 0 : Math.max(0, end - FEE_INTERVAL_SECONDS[interval]);
  return { start, end, lo: point(start), hi: point(end + 1) };
}
