import { atMost } from './at-most';
/**
 * Cleanups that must run however the process ends — a drain past its deadline, an uncaught error —
 * short of SIGKILL: today, stopping the embedded Postgres this process owns, so it never outlives
 * its owner. A clean stop runs its own cleanup and unregisters it.
 */

type Cleanup = () => Promise<unknown>;
const cleanups = new Set<Cleanup>();

export function onLastResort(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  return () => void cleanups.delete(cleanup);
}

/** Runs every registered cleanup at once, for at most `timeoutMs`; never throws. */
export async function runLastResort(timeoutMs: number): Promise<void> {
  const all = [...cleanups];
  cleanups.clear();
  if (all.length === 0) return;
  await atMost(Promise.allSettled(all.map((c) => c())), timeoutMs);
}
