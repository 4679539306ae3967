import { coverWindow, HOUR } from '@hadron/domain';
import { FEE_INTERVAL_SECONDS, type FeeInterval } from '@hadron/contracts/api';

/** Half-open `[from, to)`; `from === to` is empty. */
export interface Range {
  from: number;
  to: number;
}

export interface FeeWindowPlan {
  start: number;
  end: number;
  /** Whole hours, answered from the hourly rollups. */
  hours: Range;
  /** The partial hours at the edges (at most two), answered from raw swaps. */
  edges: [Range, Range];
}

const EMPTY: Range = { from: 0, to: 0 };

/**
 * The window `[end − length, end]` (inclusive, DESIGN §5; `all` starts at 0) split into whole
 * hours in the middle and at most two partial hours at the edges. Exact for any window at a cost
 * of O(hours) rollup rows + the swaps of two partial hours.
 */
export function planFeeWindow(interval: FeeInterval, end: number): FeeWindowPlan {
  const start = interval === 'all' ? 0 : Math.max(0, end - FEE_INTERVAL_SECONDS[interval]);
  const cover = coverWindow(start, end + 1, [HOUR]);
  const run = cover.runs[0];
  return {
    start,
    end,
    hours: run ? { from: run.from, to: run.to } : EMPTY,
    edges: [cover.raw[0] ?? EMPTY, cover.raw[1] ?? EMPTY],
  };
}
