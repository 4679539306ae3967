/** Time buckets in Unix seconds. Every bucket is aligned to a Unix-epoch multiple of its size (UTC). */

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86_400;

/** Start of the bucket of `size` seconds holding `ts` (floor, also for negative times). */
export function bucketStart(ts: number, size: number): number {
  assertSize(size);
  return Math.floor(ts / size) * size;
}

/** Smallest bucket start >= `ts`. */
export function bucketCeil(ts: number, size: number): number {
  assertSize(size);
  return Math.ceil(ts / size) * size;
}

/** Buckets of `size` seconds that [start, end] (inclusive) touches. */
export function bucketCount(size: number, start: number, end: number): number {
  return (bucketStart(end, size) - bucketStart(start, size)) / size + 1;
}

/** A run of whole buckets of one size: starts `from`, `from + size`, … while `< to`. */
export interface BucketRun {
  size: number;
  from: number;
  to: number;
}

/** Seconds `[from, to)` not covered by any bucket run: read these from raw rows. */
export interface RawRange {
  from: number;
  to: number;
}

export interface WindowCover {
  runs: BucketRun[];
  raw: RawRange[];
}

/**
 * Splits the half-open window `[from, to)` into whole buckets, largest size first, and raw edges.
 * E.g. sizes [3600, 60]: whole hours in the middle, whole minutes on both sides, then at most two
 * partial minutes read from raw rows. Any window is then exact at a cost of O(buckets), not O(rows).
 * `sizes` must be in decreasing order, each a multiple of the next.
 */
export function coverWindow(from: number, to: number, sizes: readonly number[]): WindowCover {
  const out: WindowCover = { runs: [], raw: [] };
  for (let i = 1; i < sizes.length; i++) {
    if (sizes[i - 1] <= sizes[i] || sizes[i - 1] % sizes[i] !== 0)
      throw new Error(`bucket sizes must decrease, each a multiple of the next: ${sizes.join(',')}`);
  }
  cover(from, to, sizes, out);
  out.runs.sort((a, b) => a.from - b.from || b.size - a.size);
  out.raw.sort((a, b) => a.from - b.from);
  return out;
}

function cover(from: number, to: number, sizes: readonly number[], out: WindowCover): void {
  if (from >= to) return;
  if (sizes.length === 0) {
    out.raw.push({ from, to });
    return;
  }
  const [size, ...smaller] = sizes;
  const a = bucketCeil(from, size);
  const b = bucketStart(to, size);
  if (a >= b) {
    cover(from, to, smaller, out);
    return;
  }
  out.runs.push({ size, from: a, to: b });
  cover(from, a, smaller, out);
  cover(b, to, smaller, out);
}

function assertSize(size: number): void {
  if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`bucket size must be a positive integer, got ${size}`);
}
