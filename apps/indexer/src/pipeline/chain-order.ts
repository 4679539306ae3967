/**
 * Chain order of the transactions to index: slot, then position in the block. Pure.
 *
 * Each program's getSignaturesForAddress list is in ledger order (newest first); a transaction
 * naming both programs appears in both. Within a slot the lists are merged preserving each list's
 * order (a topological merge), which is all the per-pool state needs: a pool belongs to one
 * program. When block positions are fetched (getBlock, signatures only) they decide instead, and
 * give each transaction its `txIndex`.
 */

export interface ListedSignature {
  signature: string;
  slot: number;
  err: unknown;
  blockTime: number | null;
}

export interface TxRef {
  signature: string;
  slot: number;
  blockTime: number | null;
  /** Position in the block, when fetched. */
  txIndex: number | null;
}

/** Successful transactions of all lists, oldest first. `lists` are newest first, as the RPC pages them. */
export function mergeInChainOrder(lists: readonly (readonly ListedSignature[])[]): TxRef[] {
  const bySlot = new Map<number, ListedSignature[][]>();
  lists.forEach((list, p) => {
    for (let i = list.length - 1; i >= 0; i--) {
      const s = list[i];
      if (s.err !== null && s.err !== undefined) continue; // a failed transaction changed nothing
      let perProgram = bySlot.get(s.slot);
      if (!perProgram) bySlot.set(s.slot, (perProgram = lists.map(() => [])));
      perProgram[p].push(s);
    }
  });
  const out: TxRef[] = [];
  for (const slot of [...bySlot.keys()].sort((a, b) => a - b)) {
    for (const s of mergeSequences(bySlot.get(slot)!)) out.push({ signature: s.signature, slot: s.slot, blockTime: s.blockTime, txIndex: null });
  }
  return out;
}

/**
 * One order consistent with every sequence (each already in execution order; shared entries appear
 * in the same relative order in all of them). Kahn's algorithm on "follows" edges; ties go to the
 * earlier list, then to the earlier position, so the result is deterministic.
 */
function mergeSequences(sequences: readonly ListedSignature[][]): ListedSignature[] {
  const nonEmpty = sequences.filter((s) => s.length > 0);
  if (nonEmpty.length === 1) return dedupe(nonEmpty[0]);
  const nodes = new Map<string, { item: ListedSignature; rank: number; indegree: number; next: Set<string> }>();
  let rank = 0;
  for (const seq of sequences)
    for (const item of seq) if (!nodes.has(item.signature)) nodes.set(item.signature, { item, rank: rank++, indegree: 0, next: new Set() });
  for (const seq of sequences) {
    for (let i = 1; i < seq.length; i++) {
      const from = nodes.get(seq[i - 1].signature)!;
      if (seq[i - 1].signature !== seq[i].signature && !from.next.has(seq[i].signature)) {
        from.next.add(seq[i].signature);
        nodes.get(seq[i].signature)!.indegree++;
      }
    }
  }
  const ready = [...nodes.values()].filter((n) => n.indegree === 0);
  const out: ListedSignature[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a.rank - b.rank);
    const n = ready.shift()!;
    out.push(n.item);
    for (const sig of n.next) {
      const m = nodes.get(sig)!;
      if (--m.indegree === 0) ready.push(m);
    }
  }
  // A cycle (lists disagreeing) cannot come from one ledger; keep whatever was left, in rank order.
  if (out.length < nodes.size) for (const n of [...nodes.values()].sort((a, b) => a.rank - b.rank)) if (!out.includes(n.item)) out.push(n.item);
  return out;
}

function dedupe(seq: readonly ListedSignature[]): ListedSignature[] {
  const seen = new Set<string>();
  return seq.filter((s) => !seen.has(s.signature) && (seen.add(s.signature), true));
}

/** Applies block positions: sets txIndex and re-sorts each slot by it (unknown positions keep their merged order, last). */
export function applyBlockPositions(refs: TxRef[], positions: ReadonlyMap<number, readonly string[]>): TxRef[] {
  const indexOf = new Map<string, number>();
  for (const sigs of positions.values()) sigs.forEach((s, i) => indexOf.set(s, i));
  const withIndex = refs.map((r, order) => ({ ref: { ...r, txIndex: indexOf.get(r.signature) ?? r.txIndex }, order }));
  withIndex.sort(
    (a, b) => a.ref.slot - b.ref.slot || (a.ref.txIndex ?? Number.MAX_SAFE_INTEGER) - (b.ref.txIndex ?? Number.MAX_SAFE_INTEGER) || a.order - b.order,
  );
  return withIndex.map((w) => w.ref);
}

/** Splits chain-ordered refs into chunks of about `size`, never splitting a slot (the cursor only lands on whole slots). */
export function slotAlignedChunks(refs: readonly TxRef[], size: number): TxRef[][] {
  const chunks: TxRef[][] = [];
  let current: TxRef[] = [];
  for (let i = 0; i < refs.length; i++) {
    current.push(refs[i]);
    const slotEnds = i + 1 === refs.length || refs[i + 1].slot !== refs[i].slot;
    if (current.length >= size && slotEnds) {
      chunks.push(current);
      current = [];
    }
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Slots that need block positions: `all` — every slot; `multi` — slots holding 2+ of our transactions (order matters); `none`. */
export type PositionsMode = 'all' | 'multi' | 'none';

export function slotsNeedingPositions(refs: readonly TxRef[], mode: PositionsMode): number[] {
  if (mode === 'none') return [];
  const count = new Map<number, number>();
  for (const r of refs) count.set(r.slot, (count.get(r.slot) ?? 0) + 1);
  return [...count].filter(([, n]) => mode === 'all' || n > 1).map(([slot]) => slot);
}
