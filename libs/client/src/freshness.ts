/** How fresh the data of one response is: the API's freshness headers, null when absent (unknown). */
export interface Freshness {
  /** X-Indexed-Slot: every transaction up to this slot is indexed. */
  slot: number | null;
  /** X-Indexed-Time: block time (Unix seconds) of the newest indexed transaction. */
  time: number | null;
  /** X-Data-Lag-Seconds: how far the indexed data is behind the chain head. */
  lagSeconds: number | null;
}

/** Anything with fetch's `Headers`: a Response (e.g. the `response` openapi-fetch returns) or its headers. */
type WithHeaders = { headers: { get(name: string): string | null } };

const number = (value: string | null): number | null => {
  if (value === null || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/**
 * Reads X-Indexed-Slot, X-Indexed-Time and X-Data-Lag-Seconds. In a browser on another origin
 * these are readable because the API lists them in Access-Control-Expose-Headers.
 */
export function readFreshness(response: WithHeaders): Freshness {
  const h = response.headers;
  return { slot: number(h.get('x-indexed-slot')), time: number(h.get('x-indexed-time')), lagSeconds: number(h.get('x-data-lag-seconds')) };
}
