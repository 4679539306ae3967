/** A raw point, newest first in chain order within its second. */
export interface RawPointRow {
  ts: number;
}

export type RawCut<T> =
  | { kind: 'page'; page: T[]; more: boolean }
  /** More than `limit` points share one second: the caller returns that whole second. */
  | { kind: 'whole-second'; second: number };

/**
 * Cuts a raw page from the newest `limit + 1` points before the cursor, so that walking
 * `next_cursor` (= the page's oldest second; the next page is strictly older) never skips or
 * repeats a point, even with several updates per second (DESIGN §5): a page always ends on a
 * whole second. If the cut would split a second, that second is left for the next page; if the
 * page would then be empty (one second holds more than `limit` points), the whole second is
 * returned instead.
 */
export function cutRawPage<T extends RawPointRow>(rows: readonly T[], limit: number): RawCut<T> {
  if (rows.length <= limit) return { kind: 'page', page: [...rows], more: false };
  const boundary = rows[limit].ts;
  if (rows[limit - 1].ts !== boundary) return { kind: 'page', page: rows.slice(0, limit), more: true };
  const page = rows.slice(0, limit).filter((r) => r.ts !== boundary);
  return page.length > 0 ? { kind: 'page', page, more: true } : { kind: 'whole-second', second: boundary };
}
