/**
 * Where a fact sits in chain order: (slot, txIndex, ixIndex, innerIndex). Facts of one pool are
 * ordered by it to decide "latest wins" (vault balances, current midprice, last observed ppm).
 *
 * Unknown parts are normalised so that positions always compare:
 * - `txIndex` null (unknown, or an account-state fact) → END: after every known tx of the slot;
 * - `ixIndex` null (a tx-level or account-state fact, e.g. balances after the tx) → END of the tx;
 * - `innerIndex` null → TOP (-1) for a top-level instruction (before its inner instructions),
 *   END when `ixIndex` is null too.
 * An account snapshot read at slot S therefore sorts after every instruction of slot S.
 */
export interface ChainPosition {
  slot: number;
  txIndex: number;
  ixIndex: number;
  innerIndex: number;
}

/** Sentinel for "after everything known at this level" (int4 max, so it fits the table columns). */
export const POSITION_END = 2_147_483_647;
export const POSITION_TOP = -1;

export function chainPosition(e: { slot: number; txIndex: number | null; ixIndex: number | null; innerIndex: number | null }): ChainPosition {
  return {
    slot: e.slot,
    txIndex: e.txIndex ?? POSITION_END,
    ixIndex: e.ixIndex ?? POSITION_END,
    innerIndex: e.innerIndex ?? (e.ixIndex === null ? POSITION_END : POSITION_TOP),
  };
}

export function compareChainPositions(a: ChainPosition, b: ChainPosition): number {
  return a.slot - b.slot || a.txIndex - b.txIndex || a.ixIndex - b.ixIndex || a.innerIndex - b.innerIndex;
}

/** The position as a sortable tuple, e.g. for a Postgres `int8[]` (arrays compare element-wise). */
export function positionTuple(p: ChainPosition): [number, number, number, number] {
  return [p.slot, p.txIndex, p.ixIndex, p.innerIndex];
}
