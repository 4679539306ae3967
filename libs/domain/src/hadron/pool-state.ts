export type HadronPoolState = 'Uninitialized' | 'Initialized' | 'Paused' | 'RejectSwaps' | 'Closed';

/**
 * The config's state byte. Only 1 = Initialized is confirmed (the only state that can swap);
 * 0, 2, 3 and 4 follow the program's enum order as we ASSUME it. Null for any other byte.
 */
export function poolStateName(state: number): HadronPoolState | null {
  const names: readonly HadronPoolState[] = ['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed'];
  return names[state] ?? null;
}
