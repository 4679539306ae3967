/** Integer text of a numeric/int8 column → bigint (exact; a ".000" tail is tolerated). */
export function intOf(s: string): bigint {
  const dot = s.indexOf('.');
  return BigInt(dot < 0 ? s : s.slice(0, dot) || '0');
}
