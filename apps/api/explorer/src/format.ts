/**
 * How numbers look on the page. The exact values the API sent are kept next to them in data-*
 * attributes, so a reader (or the browser test) can compare with the API.
 */
const amount = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const price = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6 });
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Quote-denominated value (TVL, volume, fees): at most 2 decimals, thousands separated. */
export function formatAmount(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : amount.format(n);
}

/** A price: 6 significant digits (prices span many orders of magnitude). */
export function formatPrice(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : price.format(n);
}

export function formatInteger(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n);
}

/** Parts per million as a percentage (600000 → "60%"). */
export function formatPpm(ppm: number): string {
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }).format(ppm / 10_000)}%`;
}

/**
 * Raw token atoms (an exact decimal string, or a JSON number) as token units: the integer string
 * shifted by `decimals`, thousands separated, trailing zeros dropped. Exact: no float on the way.
 */
export function formatAtoms(raw: string | number | bigint, decimals: number): string {
  let digits = typeof raw === 'bigint' ? raw.toString() : typeof raw === 'number' ? BigInt(Math.trunc(raw)).toString() : raw;
  const negative = digits.startsWith('-');
  if (negative) digits = digits.slice(1);
  if (!/^\d+$/.test(digits)) return String(raw);
  digits = digits.padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Unix seconds as "YYYY-MM-DD HH:MM:SS UTC". */
export function formatTime(unixSeconds: number | null | undefined): string {
  if (unixSeconds === null || unixSeconds === undefined) return '—';
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function formatDay(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

/** A short address: first and last 4 characters. */
export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 4)}…${address.slice(-4)}`;
}
