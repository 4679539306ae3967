/**
 * Whether a getTransaction result has the shape the decoder reads, or where it does not. Checked
 * once, up front, so the decoder itself can index freely and never throws on a proxy's truncated
 * or re-shaped JSON: a malformed result becomes one recorded problem instead of a TypeError.
 * Returns null when the result is well formed.
 */
export function shapeProblemOf(result: unknown): string | null {
  if (!isObject(result)) return 'the result is not an object';
  if (!isSlot(result.slot)) return 'slot is not a non-negative integer';
  if (result.blockTime !== undefined && result.blockTime !== null && !Number.isInteger(result.blockTime)) return 'blockTime is not an integer';
  const tx = result.transaction;
  if (!isObject(tx)) return 'transaction is missing';
  if (!Array.isArray(tx.signatures) || tx.signatures.length === 0 || !tx.signatures.every(isNonEmptyString))
    return 'transaction.signatures is not a non-empty list of strings';
  const message = tx.message;
  if (!isObject(message)) return 'transaction.message is missing';
  if (!Array.isArray(message.accountKeys) || !message.accountKeys.every(isNonEmptyString)) return 'message.accountKeys is not a list of strings';
  const top = instructionsProblem(message.instructions, 'message.instructions');
  if (top) return top;
  const meta = result.meta;
  if (meta === null) return null; // reported on its own (missing_meta)
  if (!isObject(meta)) return 'meta is not an object';
  if (meta.err === undefined) return 'meta.err is missing';
  if (meta.innerInstructions !== undefined && meta.innerInstructions !== null) {
    if (!Array.isArray(meta.innerInstructions)) return 'meta.innerInstructions is not a list';
    for (const [i, group] of meta.innerInstructions.entries()) {
      if (!isObject(group) || !isSlot(group.index)) return `meta.innerInstructions[${i}].index is not an instruction index`;
      const inner = instructionsProblem(group.instructions, `meta.innerInstructions[${i}].instructions`);
      if (inner) return inner;
    }
  }
  const loaded = meta.loadedAddresses;
  if (loaded !== undefined && loaded !== null) {
    if (!isObject(loaded) || !isStringList(loaded.writable) || !isStringList(loaded.readonly))
      return 'meta.loadedAddresses is not {writable, readonly} lists of strings';
  }
  for (const field of ['preTokenBalances', 'postTokenBalances'] as const) {
    const balances = meta[field];
    if (balances === undefined || balances === null) continue;
    if (!Array.isArray(balances)) return `meta.${field} is not a list`;
    for (const [i, b] of balances.entries()) {
      if (!isObject(b) || !isSlot(b.accountIndex)) return `meta.${field}[${i}].accountIndex is not an index`;
      if (b.owner !== undefined && typeof b.owner !== 'string') return `meta.${field}[${i}].owner is not a string`;
      // u64 as a decimal string: BigInt would throw on anything else ("1.5", "", "0x10", a number).
      if (!isObject(b.uiTokenAmount) || typeof b.uiTokenAmount.amount !== 'string' || !U64_TEXT.test(b.uiTokenAmount.amount))
        return `meta.${field}[${i}].uiTokenAmount.amount is not a u64 decimal string`;
    }
  }
  return null;
}

/**
 * A transaction as the RPC serves it (source/): its shape, and, when it succeeded, everything
 * decoding reads must be THERE — token balances, inner instructions, a v0 transaction's loaded
 * addresses. The decoder alone reads an absent list as empty; from the RPC an absent one is a cut
 * or rewritten answer, retried like any malformed one. `meta: null` passes (the caller treats it
 * as a transaction not served yet). Returns null when the result can be trusted.
 */
export function servedTransactionProblem(result: unknown): string | null {
  const shape = shapeProblemOf(result);
  if (shape !== null) return shape;
  const { meta, version } = result as { meta: Record<string, unknown> | null; version?: unknown };
  if (meta === null || (meta.err !== null && meta.err !== undefined)) return null; // failed: nothing of it is decoded
  for (const field of ['preTokenBalances', 'postTokenBalances', 'innerInstructions'] as const)
    if (!Array.isArray(meta[field])) return `meta.${field} is missing`;
  if (version === 0 && (meta.loadedAddresses === undefined || meta.loadedAddresses === null)) return 'a v0 transaction without meta.loadedAddresses';
  return null;
}

const U64_TEXT = /^(0|[1-9][0-9]{0,19})$/;

function instructionsProblem(list: unknown, path: string): string | null {
  if (!Array.isArray(list)) return `${path} is not a list`;
  for (const [i, ix] of list.entries()) {
    if (!isObject(ix)) return `${path}[${i}] is not an instruction`;
    if (!isSlot(ix.programIdIndex)) return `${path}[${i}].programIdIndex is not an index`;
    if (!Array.isArray(ix.accounts) || !ix.accounts.every(isSlot)) return `${path}[${i}].accounts is not a list of indexes`;
    if (typeof ix.data !== 'string') return `${path}[${i}].data is not a string`;
    if (ix.stackHeight !== undefined && ix.stackHeight !== null && !isSlot(ix.stackHeight)) return `${path}[${i}].stackHeight is not an integer`;
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isSlot(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every(isNonEmptyString);
}
