/** Injection tokens for what the composition root passes in (createApiApp). */
export const PG_POOL = Symbol('PG_POOL');
export const API_CONFIG = Symbol('API_CONFIG');
export const API_LOGGER = Symbol('API_LOGGER');
export const CLOCK = Symbol('CLOCK');

/** Milliseconds since the epoch; tests pass a fixed clock. */
export type Clock = () => number;

export function nowSeconds(clock: Clock): number {
  return Math.floor(clock() / 1000);
}
