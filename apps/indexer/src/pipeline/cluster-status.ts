import type { Cluster } from '@hadron/contracts';
import type { ClusterSettings } from '../config/indexer.config';

export interface ClusterStatus {
  cluster: Cluster;
  headSlot: number;
  cursorSlot: number | null;
  slotLag: number | null;
  backfillDone: boolean;
  gaps: number;
  pools: number;
  lastError: string | null;
  /** Why the indexer refuses to index: its RPC serves another chain than the index's (by genesis hash); null otherwise. */
  wrongChain: string | null;
  /** Indexing cycles failed in a row (holding the cursor for a transaction not served yet is not a failure). */
  cycleFailures: number;
  /** Seconds since the cursor last moved, or a poll found nothing new. */
  secondsSinceProgress: number;
  /** False while another process holds this cluster (standby). */
  active: boolean;
  /** Pools discovered but held back: a mint did not read yet (indexer.problem `mint_unavailable`). */
  heldPools: number;
  /** Block time (unix s) of the newest indexed transaction; null until known. */
  indexedBlockTime: number | null;
  /** How old the newest indexed data is while behind the head (now − indexedBlockTime); 0 at the head; null when unknown. */
  lagSeconds: number | null;
  /** How long the RPC has given no good answer; 0 while healthy. */
  rpcFailingSeconds: number;
}

/** What the status is made of: the indexer's state at `now` (ms). */
export interface StatusInput {
  cluster: Cluster;
  now: number;
  headSlot: number;
  /** The cursor as good as reached (a poll that found nothing new), else the durable one. */
  cursorSlot: number | null;
  backfillDone: boolean;
  gaps: number;
  pools: number;
  lastError: string | null;
  wrongChain: string | null;
  cycleFailures: number;
  lastProgressAt: number;
  active: boolean;
  heldPools: number;
  indexedBlockTime: number | null;
  rpcFailingSeconds: number;
}

export function clusterStatus(i: StatusInput): ClusterStatus {
  const slotLag = i.cursorSlot === null ? null : Math.max(0, i.headSlot - i.cursorSlot);
  return {
    cluster: i.cluster,
    headSlot: i.headSlot,
    cursorSlot: i.cursorSlot,
    slotLag,
    backfillDone: i.backfillDone,
    gaps: i.gaps,
    pools: i.pools,
    lastError: i.lastError,
    wrongChain: i.wrongChain,
    cycleFailures: i.cycleFailures,
    secondsSinceProgress: Math.round((i.now - i.lastProgressAt) / 1000),
    active: i.active,
    heldPools: i.heldPools,
    indexedBlockTime: i.indexedBlockTime,
    lagSeconds: slotLag === 0 ? 0 : i.indexedBlockTime === null ? null : Math.max(0, Math.round(i.now / 1000 - i.indexedBlockTime)),
    rpcFailingSeconds: Math.round(i.rpcFailingSeconds),
  };
}

/**
 * Serving current data: backfilled, close to the head, no gap, and actually moving — a cursor
 * stuck behind the head (a block the RPC never serves, an append that keeps failing) is not
 * ready even while the lag is still small.
 */
export function isReady(
  s: ClusterStatus,
  msSinceProgress: number,
  settings: Pick<ClusterSettings, 'readyMaxSlotLag' | 'readyMaxStallMs' | 'readyMaxCycleErrors' | 'readyMaxRpcFailingMs' | 'readyMaxLagSeconds'>,
): boolean {
  const { readyMaxSlotLag, readyMaxStallMs, readyMaxCycleErrors, readyMaxRpcFailingMs, readyMaxLagSeconds } = settings;
  const stalled = s.slotLag !== null && s.slotLag > 0 && msSinceProgress > readyMaxStallMs;
  const rpcDown = s.rpcFailingSeconds * 1000 > readyMaxRpcFailingMs;
  const old = readyMaxLagSeconds > 0 && s.lagSeconds !== null && s.lagSeconds > readyMaxLagSeconds;
  return (
    s.active &&
    s.wrongChain === null &&
    s.backfillDone &&
    s.slotLag !== null &&
    s.slotLag <= readyMaxSlotLag &&
    !old &&
    s.gaps === 0 &&
    s.heldPools === 0 &&
    s.cycleFailures < readyMaxCycleErrors &&
    !stalled &&
    !rpcDown
  );
}
