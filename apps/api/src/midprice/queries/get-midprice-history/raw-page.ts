export type RawCut<T> =
  | { kind: 'page'; page: T[]; more: boolean }
  /** More than `limit` points share one second: the caller returns that whole second. */
  | { kind: 'whole-second'; second: number };

/**
 * Cuts a raw page from the newest `limit + 1` points before the cursor (newest first in chain
 * order within a second; `tsOf` gives a point's second), so that walking `next_cursor` (= the
 * page's oldest second; the next page is strictly older) never skips or repeats a point, even
 * with several updates per second (DESIGN §5): a page always ends on a whole second. If the cut
 * would split a second, that second is left for the next page; if the page would then be empty
 * (one second holds more than `limit` points), the whole second is returned instead. `tsOf` is
 * called on the points at the cut only (the rows are the database's, not objects made for this).
 */
export function cutRawPage<T>(rows: readonly T[], limit: number, tsOf: (row: T) => number): RawCut<T> {
  if (rows.length <= limit) return { kind: 'page', page: [...rows], more: false };
  const boundary = tsOf(rows[limit]);
  if (tsOf(rows[limit - 1]) !== boundary) return { kind: 'page', page: rows.slice(0, limit), more: true };
  const page = rows.slice(0, limit).filter((r) => tsOf(r) !== boundary);
  return page.length > 0 ? { kind: 'page', page, more: true } : { kind: 'whole-second', second: boundary };
}
