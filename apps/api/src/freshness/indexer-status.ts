/**
 * What a cluster's active indexer publishes in its `component_status` row (`indexer:<cluster>`,
 * `detail`; written by apps/indexer's cluster status), read once here for readiness and for the
 * freshness headers and `as_of`. A missing or malformed number reads as null, never as 0.
 */
export interface IndexerStatus {
  cluster: string;
  ready: boolean;
  backfillDone: boolean;
  /** The newest slot indexed, and the block time of its newest indexed transaction. */
  cursorSlot: number | null;
  indexedBlockTime: number | null;
  headSlot: number | null;
  slotLag: number | null;
  lagSeconds: number | null;
  rpcFailingSeconds: number | null;
  /** Transactions waiting in the gap ledger, pools held back, failed cycles in a row. */
  gaps: number | null;
  heldPools: number | null;
  cycleFailures: number | null;
  /** Why the indexer refuses to index (its RPC serves another chain than the index's), or null. */
  wrongChain: string | null;
}

export const INDEXER_COMPONENT_PREFIX = 'indexer:';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function readIndexerStatus(component: string, detail: Record<string, unknown> | null): IndexerStatus {
  const d = detail ?? {};
  return {
    cluster: component.slice(INDEXER_COMPONENT_PREFIX.length),
    ready: d.ready === true,
    backfillDone: d.backfillDone === true,
    cursorSlot: num(d.cursorSlot),
    indexedBlockTime: num(d.indexedBlockTime),
    headSlot: num(d.headSlot),
    slotLag: num(d.slotLag),
    lagSeconds: num(d.lagSeconds),
    rpcFailingSeconds: num(d.rpcFailingSeconds),
    gaps: num(d.gaps),
    heldPools: num(d.heldPools),
    cycleFailures: num(d.cycleFailures),
    wrongChain: typeof d.wrongChain === 'string' ? d.wrongChain : null,
  };
}
