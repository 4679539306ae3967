/**
 * How readers query the swaps projection's running totals (`read.fee_running_*`,
 * `read.fee_recipient_running_*`; the projector's swaps.schema.ts defines them): the totals of
 * everything with ts < X are the `run_*` of the last day row before X's UTC day plus the `run_*`
 * of the last second row of that day before X. Shared by the API's fees query and the projector's
 * 24 h stats, so both read a window the same way.
 */

/** Pool totals kept as running totals (all of `read.fee_running_*`'s columns the readers use). */
export const RUNNING_POOL_TOTALS = ['volume_q32', 'spread_q32', 'protocol_fee_q32', 'fee_x_raw', 'fee_y_raw', 'swap_count'] as const;
/** A recipient's running shares (× 10^6), in the pool totals' column order (value, x, y, count). */
export const RUNNING_RECIPIENT_SHARES = ['fee_value_q32_x1e6', 'fee_x_raw_x1e6', 'fee_y_raw_x1e6', 'swap_count'] as const;

/**
 * Two LEFT JOIN LATERALs, `<alias>d` (day part) and `<alias>s` (second part), giving `run_<col>`
 * of `read.<view>_day` / `read.<view>_second` through `x` (exclusive; `day` = its UTC day start).
 * `key` narrows to the pool (and recipient); `extra` adds columns of the rows.
 */
export function runningThrough(alias: string, cols: readonly string[], view: string, key: string, x: string, day: string, extra = ''): string {
  const run = cols.map((c) => `run_${c}`).join(', ');
  return `
  LEFT JOIN LATERAL (SELECT ${run}${extra} FROM read.${view}_day
                      WHERE ${key} AND day_start < ${day} ORDER BY day_start DESC LIMIT 1) ${alias}d ON true
  LEFT JOIN LATERAL (SELECT ${run}${extra} FROM read.${view}_second
                      WHERE ${key} AND ts >= ${day} AND ts < ${x} ORDER BY ts DESC LIMIT 1) ${alias}s ON true`;
}

/** One column of the window between two `runningThrough` points `hi` and `lo` (a missing row is 0), as numeric. */
export function runningDiff(col: string, hi = 'hi', lo = 'lo'): string {
  return `(coalesce(${hi}d.run_${col}, 0) + coalesce(${hi}s.run_${col}, 0) - coalesce(${lo}d.run_${col}, 0) - coalesce(${lo}s.run_${col}, 0))`;
}
