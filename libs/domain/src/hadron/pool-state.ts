export type HadronPoolState = 'Uninitialized' | 'Initialized' | 'Paused' | 'RejectSwaps' | 'Closed';

/** Every name, in the order of the state byte they stand for. */
export const HADRON_POOL_STATES: readonly HadronPoolState[] = ['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed'];

/**
 * [A] The config's state byte → its name: the one place the mapping lives. Only 1 = Initialized is
 * confirmed (the only state that can swap); 0, 2, 3 and 4 follow the program's enum order as we
 * ASSUME it. Null for any other byte.
 */
export function poolStateName(state: number): HadronPoolState | null {
  return HADRON_POOL_STATES[state] ?? null;
}

/**
 * The name to publish where a consumer needs one of the five (events, API): a byte outside the
 * known enum is shown as Uninitialized — never as a state that trades — and the raw byte must be
 * kept next to it so nothing is lost.
 */
export function publishedPoolState(state: number): HadronPoolState {
  return poolStateName(state) ?? 'Uninitialized';
}
