/**
 * Postgres array literals built directly. pg's generic array serialisation escapes element by
 * element and cost more per batch than the projection's own work (≈ 35 ms for 1,800 swaps ×
 * 31 columns, against ≈ 4 ms here). Pass the result as a parameter cast to the array type.
 */

/** text[] literal: every element double-quoted, `"` and `\` escaped, null → NULL. */
export function textArray(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null) out += 'NULL';
    else out += v.includes('"') || v.includes('\\') ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return out + '}';
}

/**
 * Numeric / integer array literal from numbers or decimal strings (bigint.toString()), null → NULL.
 * Elements are trusted to be numbers: they come from parsed, validated events.
 */
export function numberArray(values: readonly (number | string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null ? 'NULL' : String(v);
  }
  return out + '}';
}

export function boolArray(values: readonly boolean[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) out += (i > 0 ? ',' : '') + (values[i] ? 't' : 'f');
  return out + '}';
}
