import { coverWindow, HOUR, MINUTE } from '@hadron/domain';
import { FEE_INTERVAL_SECONDS, type FeeInterval } from '@hadron/contracts/api';

/** Half-open `[from, to)`; `from === to` is empty. */
export interface Range {
  from: number;
  to: number;
}

export interface FeeWindowPlan {
  start: number;
  end: number;
  /** Whole hours, answered from the hourly rollups (totals and per recipient). */
  hours: Range;
  /** Whole minutes on each side of the hours (at most two runs), from the minute rollups. */
  minutes: [Range, Range];
  /** The partial minutes at the edges (at most two), from raw swaps: the only part the swap cap applies to. */
  raw: [Range, Range];
}

const EMPTY: Range = { from: 0, to: 0 };

/**
 * The window `[end − length, end]` (inclusive, DESIGN §5; `all` starts at 0) split into whole
 * hours in the middle, whole minutes beside them, and at most two partial minutes at the edges.
 * Exact for any window at a cost of O(hours + minutes) rollup rows + the swaps of two partial
 * minutes, however busy the pool.
 */
export function planFeeWindow(interval: FeeInterval, end: number): FeeWindowPlan {
  const start = interval === 'all' ? 0 : Math.max(0, end - FEE_INTERVAL_SECONDS[interval]);
  const cover = coverWindow(start, end + 1, [HOUR, MINUTE]);
  const hours = cover.runs.filter((r) => r.size === HOUR);
  const minutes = cover.runs.filter((r) => r.size === MINUTE);
  if (hours.length > 1 || minutes.length > 2 || cover.raw.length > 2) throw new Error(`unexpected window cover for [${start}, ${end}]`);
  const range = (r: Range | undefined): Range => (r ? { from: r.from, to: r.to } : EMPTY);
  return {
    start,
    end,
    hours: range(hours[0]),
    minutes: [range(minutes[0]), range(minutes[1])],
    raw: [range(cover.raw[0]), range(cover.raw[1])],
  };
}
