import { configFingerprint, splitFingerprint, type AccountState, type PoolStatic } from '../discovery/pool-accounts';
import type { AdminScan } from './admin-scan';

/**
 * WHERE an account-state change is placed in chain order. Solana has no historical account reads:
 * a snapshot read at slot C says what the accounts are after every write up to C. So when a batch
 * holds every transaction up to C (lookahead mode), the state read at C is exactly the state after
 * the LAST transaction in the batch that may have written the account — the change is placed
 * there, and every swap after it carries the new fee split. Between two such writes the state is
 * unknown, so the split in effect is "not tracked" (null on swaps). With no write in the batch,
 * the change is placed at the end of slot C (unexplained changes; pools first seen at C). Pure.
 */

/** After transaction `index` of the batch, or at the end of the batch (slot C). */
export type At = number | 'end';

export interface PoolAttribution {
  config: string;
  /** New pool: where PoolDiscovered goes. */
  discoverAt: At | null;
  /**
   * True when nothing in the batch wrote the pool's accounts: the state read at C held all along,
   * so it applies from BEFORE the first transaction naming the pool (its swaps carry the split).
   */
  discoverBefore: boolean;
  /** Existing pool whose config-level state changed: where PoolConfigChanged goes. */
  configChangeAt: At | null;
  /** Where the split read at C takes effect (FeeSplitChanged when it differs from the published one). */
  splitAt: At;
}

export interface AttributionInput {
  pool: PoolStatic;
  /** Read at C; null when the pool's config is gone. */
  observed: AccountState;
  /** Last published state; null for a pool not published yet. */
  published: AccountState | null;
}

export function attribute(inputs: readonly AttributionInput[], scans: readonly (AdminScan | null)[]): PoolAttribution[] {
  return inputs.map(({ pool, observed, published }) => {
    const watched = [pool.config, pool.oracle, pool.poolFeeConfig, pool.globalFeeConfig];
    const feeAccounts = new Set([pool.config, observed.feeConfig, published?.feeConfig ?? observed.feeConfig]);
    const writes: number[] = [];
    const splitWrites: number[] = [];
    let firstNamed: number | null = null;
    scans.forEach((scan, i) => {
      if (!scan) return;
      if (watched.some((a) => scan.written.has(a))) writes.push(i);
      if ([...feeAccounts].some((a) => scan.written.has(a))) splitWrites.push(i);
      if (firstNamed === null && scan.named.has(pool.config)) firstNamed = i;
    });
    const lastWrite: At = writes.length > 0 ? writes[writes.length - 1] : 'end';
    if (published === null) {
      const discoverAt: At = writes.length > 0 ? lastWrite : (firstNamed ?? 'end');
      return { config: pool.config, discoverAt, discoverBefore: writes.length === 0 && firstNamed !== null, configChangeAt: null, splitAt: discoverAt };
    }
    const configChanged = configFingerprint(observed) !== configFingerprint(published);
    const splitAt: At = splitWrites.length > 0 ? splitWrites[splitWrites.length - 1] : 'end';
    return {
      config: pool.config,
      discoverAt: null,
      discoverBefore: false,
      configChangeAt: configChanged ? lastWrite : null,
      splitAt,
    };
  });
}

export function splitChanged(observed: AccountState, published: AccountState | null): boolean {
  return published === null || splitFingerprint(observed) !== splitFingerprint(published);
}
