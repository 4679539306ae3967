import type { TokenMetadata } from '@hadron/contracts';
import type { SplitWeight } from '@hadron/domain';
import type { KnownPool } from '../decode';
import type { AccountState, PoolStatic } from '../discovery/pool-accounts';

/**
 * What the indexer knows about each pool, persisted with the cursor (store/): the static facts,
 * the state IN EFFECT at the cursor (so a swap after a restart still gets the midprice of the last
 * update before it), and the account state last published (to emit changes only).
 */

export interface TrackedState {
  /** Oracle midprice / spread factor in effect; null = not known yet. */
  midpriceQ32: string | null;
  spreadFactorQ32: string | null;
  /** Fee split in effect: null = not tracked (before the first observation, or after an unobserved write); [] = the default single recipient. */
  split: SplitWeight[] | null;
  /** Vault balances after the last transaction seen. */
  vaultX: string | null;
  vaultY: string | null;
  /** The last oracle update applied (sequence, slot): an oracle read older than it is not adopted. Absent = none seen. */
  oracleSequence?: string | null;
  oracleSlot?: number | null;
}

export interface PoolRecord {
  static: PoolStatic;
  tokens: { x: TokenMetadata; y: TokenMetadata };
  tracked: TrackedState;
  /** Account state last published (PoolDiscovered / PoolConfigChanged / FeeSplitChanged). */
  published: AccountState;
  discoveredSlot: number;
}

export const UNKNOWN_STATE: TrackedState = { midpriceQ32: null, spreadFactorQ32: null, split: null, vaultX: null, vaultY: null };

export function knownPoolOf(p: PoolStatic): KnownPool {
  return { programId: p.programId, version: p.version, mintX: p.mintX, mintY: p.mintY, vaultX: p.vaultX, vaultY: p.vaultY, oracle: p.oracle };
}

/**
 * Takes the oracle read at the end of a cycle as the state in effect — unless it is older than the
 * last update already applied: one snapshot's reads can straddle slots, and an older read would
 * undo that update. A zero midprice (never valid on chain) keeps the tracked one.
 */
export function adoptOracle(t: TrackedState, o: { sequence: string; midpriceQ32: string; spreadFactorQ32: string; lastUpdateSlot?: string }): void {
  if (t.oracleSequence !== undefined && t.oracleSequence !== null) {
    const read = BigInt(o.sequence);
    const applied = BigInt(t.oracleSequence);
    if (read < applied) return;
    // An equal sequence is accepted on chain: the update slot tells which came last.
    if (read === applied && o.lastUpdateSlot !== undefined && t.oracleSlot !== undefined && t.oracleSlot !== null && Number(o.lastUpdateSlot) < t.oracleSlot)
      return;
  }
  if (o.midpriceQ32 !== '0') t.midpriceQ32 = o.midpriceQ32;
  t.spreadFactorQ32 = o.spreadFactorQ32;
  t.oracleSequence = o.sequence;
  t.oracleSlot = o.lastUpdateSlot === undefined ? null : Number(o.lastUpdateSlot);
}

/** The split a swap carries: null when untracked or the default recipient (DESIGN §2). */
export function splitOnSwap(split: SplitWeight[] | null): SplitWeight[] | null {
  return split && split.length > 0 ? canonicalSplit(split) : null;
}

/** `{recipient, ppm}` in that key order, whatever order a JSONB round trip left (payloads stay byte-identical across restarts). */
export function canonicalSplit(split: readonly SplitWeight[]): SplitWeight[] {
  return split.map((w) => ({ recipient: w.recipient, ppm: w.ppm }));
}

/** Every account address whose write may change what we publish about the pool. */
export function watchedAccounts(r: { static: PoolStatic }): string[] {
  return [r.static.config, r.static.oracle, r.static.poolFeeConfig, r.static.globalFeeConfig];
}
