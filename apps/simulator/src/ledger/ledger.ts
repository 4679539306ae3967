import { encodeBase58 } from '@hadron/domain';
import { Rng } from './prng';

/**
 * The simulated chain of one cluster: slots (≈400 ms, unix-second block times), blocks with
 * ordered transactions, and accounts with per-slot history. Transactions are stored as the
 * exact JSON fragments `getTransaction` (json encoding) returns, so serving them is string
 * concatenation and answers are byte-stable.
 */

export interface AccountState {
  owner: string;
  lamports: number;
  data: Uint8Array;
  executable: boolean;
  rentEpoch: number;
}

interface AccountVersion {
  slot: number;
  /** null = the account was closed at this slot. */
  state: AccountState | null;
}

export type TxVersion = 'legacy' | 0;

export interface StoredTx {
  signature: string;
  slot: number;
  /** Position in the block. */
  txIndex: number;
  blockTime: number;
  version: TxVersion;
  /** `meta.err`, kept parsed for getSignaturesForAddress. */
  err: unknown;
  /** JSON of `meta` and `transaction`, exactly as served. */
  metaJson: string;
  transactionJson: string;
  /** Every account key, static then loaded (what getSignaturesForAddress indexes). */
  accountKeys: readonly string[];
}

export interface BlockRecord {
  slot: number;
  parentSlot: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  blockHeight: number;
  transactions: StoredTx[];
}

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface LedgerClock {
  /** The first slot of the simulated history. */
  firstSlot: number;
  /** Unix ms at firstSlot. */
  firstSlotTimeMs: number;
  slotMs: number;
}

export interface CommitmentLags {
  confirmed: number;
  finalized: number;
}

/** Rent epoch of a rent-exempt account, as the RPC reports it (u64::MAX). */
export const RENT_EXEMPT_EPOCH = 18446744073709551615;

export class Ledger {
  private readonly accounts = new Map<string, AccountVersion[]>();
  /** Owner → every address it ever owned (getProgramAccounts re-checks the version at the slot). */
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly txs = new Map<string, StoredTx>();
  private readonly byAddress = new Map<string, StoredTx[]>();
  private readonly blocks = new Map<number, BlockRecord>();
  private readonly blockSlots: number[] = [];
  private readonly sigRng: Rng;
  private readonly hashRng: Rng;
  private headSlot: number;
  private blockHeight: number;
  private lastBlockSlot: number | null = null;
  /** Slots at or below this are final for every commitment (the generated history). */
  private settledSlot: number;
  private lags: CommitmentLags = { confirmed: 0, finalized: 0 };

  constructor(
    readonly clock: LedgerClock,
    rng: Rng,
    readonly genesisHash: string,
    firstBlockHeight: number,
  ) {
    this.sigRng = rng.fork('signatures');
    this.hashRng = rng.fork('blockhashes');
    this.headSlot = clock.firstSlot - 1;
    this.settledSlot = this.headSlot;
    this.blockHeight = firstBlockHeight;
  }

  // ---- time and commitment -------------------------------------------------------------------

  blockTimeOf(slot: number): number {
    return Math.floor((this.clock.firstSlotTimeMs + (slot - this.clock.firstSlot) * this.clock.slotMs) / 1000);
  }

  get head(): number {
    return this.headSlot;
  }

  /** Everything produced so far becomes final at once (end of history generation). */
  settle(): void {
    this.settledSlot = this.headSlot;
  }

  setCommitmentLags(lags: CommitmentLags): void {
    this.lags = lags;
  }

  visibleSlot(commitment: Commitment = 'finalized'): number {
    const lag = commitment === 'processed' ? 0 : this.lags[commitment];
    return Math.min(this.headSlot, Math.max(this.settledSlot, this.headSlot - lag));
  }

  confirmationStatusOf(slot: number): Commitment {
    if (slot <= this.visibleSlot('finalized')) return 'finalized';
    if (slot <= this.visibleSlot('confirmed')) return 'confirmed';
    return 'processed';
  }

  // ---- slots and blocks --------------------------------------------------------------------

  /** Moves the head to `slot`; returns the new (empty) block, or null for a skipped slot. */
  openSlot(slot: number, skipped: boolean): BlockRecord | null {
    if (slot !== this.headSlot + 1) throw new Error(`slots advance one at a time: head ${this.headSlot}, got ${slot}`);
    this.headSlot = slot;
    if (skipped) return null;
    const previous = this.lastBlockSlot === null ? null : this.blocks.get(this.lastBlockSlot)!;
    const block: BlockRecord = {
      slot,
      parentSlot: previous?.slot ?? slot - 1,
      blockhash: encodeBase58(this.hashRng.bytes(32)),
      previousBlockhash: previous?.blockhash ?? this.genesisHash,
      blockTime: this.blockTimeOf(slot),
      blockHeight: this.blockHeight++,
      transactions: [],
    };
    this.blocks.set(slot, block);
    this.blockSlots.push(slot);
    this.lastBlockSlot = slot;
    return block;
  }

  block(slot: number): BlockRecord | undefined {
    return this.blocks.get(slot);
  }

  /** Slots that have blocks in [start, end], ascending. */
  blockSlotsBetween(start: number, end: number): number[] {
    const out: number[] = [];
    for (let i = lowerBound(this.blockSlots, start); i < this.blockSlots.length && this.blockSlots[i] <= end; i++) out.push(this.blockSlots[i]);
    return out;
  }

  latestBlock(atOrBefore: number): BlockRecord | undefined {
    const i = lowerBound(this.blockSlots, atOrBefore + 1) - 1;
    return i >= 0 ? this.blocks.get(this.blockSlots[i]) : undefined;
  }

  firstBlockSlot(): number | undefined {
    return this.blockSlots[0];
  }

  /** A recent blockhash for a new transaction (a block a few slots back, as wallets use). */
  recentBlockhash(back: number): string {
    const i = Math.max(0, this.blockSlots.length - 1 - back);
    return this.blockSlots.length === 0 ? this.genesisHash : this.blocks.get(this.blockSlots[i])!.blockhash;
  }

  nextSignature(): string {
    return encodeBase58(this.sigRng.bytes(64));
  }

  // ---- accounts ------------------------------------------------------------------------------

  getAccount(address: string, atSlot: number = Number.POSITIVE_INFINITY): AccountState | null {
    const versions = this.accounts.get(address);
    if (!versions) return null;
    for (let i = versions.length - 1; i >= 0; i--) if (versions[i].slot <= atSlot) return versions[i].state;
    return null;
  }

  /** Writes the account's state as of `slot` (the latest write in a slot wins). */
  setAccount(address: string, state: AccountState | null, slot: number): void {
    let versions = this.accounts.get(address);
    if (!versions) {
      versions = [];
      this.accounts.set(address, versions);
    }
    const last = versions[versions.length - 1];
    if (last && last.slot > slot) throw new Error(`account ${address} written at ${slot} after ${last.slot}`);
    if (last && last.slot === slot) last.state = state;
    else versions.push({ slot, state });
    if (state) {
      let owned = this.byOwner.get(state.owner);
      if (!owned) {
        owned = new Set();
        this.byOwner.set(state.owner, owned);
      }
      owned.add(address);
    }
  }

  /** Accounts owned by `owner` at `atSlot`, in a stable (first-seen) order. */
  *accountsOwnedBy(owner: string, atSlot: number): Iterable<[string, AccountState]> {
    for (const address of this.byOwner.get(owner) ?? []) {
      const state = this.getAccount(address, atSlot);
      if (state && state.owner === owner) yield [address, state];
    }
  }

  /** Every version of an account (for tests and ground truth). */
  accountHistory(address: string): readonly { slot: number; state: AccountState | null }[] {
    return this.accounts.get(address) ?? [];
  }

  // ---- transactions --------------------------------------------------------------------------

  appendTransaction(tx: Omit<StoredTx, 'txIndex' | 'blockTime'>): StoredTx {
    const block = this.blocks.get(tx.slot);
    if (!block || tx.slot !== this.headSlot) throw new Error(`no open block at slot ${tx.slot}`);
    const stored: StoredTx = { ...tx, txIndex: block.transactions.length, blockTime: block.blockTime };
    block.transactions.push(stored);
    this.txs.set(stored.signature, stored);
    for (const key of new Set(stored.accountKeys)) {
      let list = this.byAddress.get(key);
      if (!list) {
        list = [];
        this.byAddress.set(key, list);
      }
      list.push(stored);
    }
    return stored;
  }

  transaction(signature: string): StoredTx | undefined {
    return this.txs.get(signature);
  }

  get transactionCount(): number {
    return this.txs.size;
  }

  /**
   * Signatures touching `address`, newest first (slot desc, then position in block desc), as
   * getSignaturesForAddress pages them: strictly older than `before`, stopping at `until`
   * (exclusive). An unknown `before` gives an empty page.
   */
  signaturesFor(address: string, opts: { before?: string; until?: string; limit: number; maxSlot: number }): StoredTx[] {
    const list = this.byAddress.get(address) ?? [];
    let start: number;
    if (opts.before !== undefined) {
      const before = this.txs.get(opts.before);
      if (!before) return [];
      start = positionBefore(list, before) - 1;
    } else {
      start = upperBoundSlot(list, opts.maxSlot) - 1;
    }
    const until = opts.until !== undefined ? this.txs.get(opts.until) : undefined;
    const out: StoredTx[] = [];
    for (let i = start; i >= 0 && out.length < opts.limit; i--) {
      const tx = list[i];
      if (until && !isAfter(tx, until)) break;
      if (tx.slot <= opts.maxSlot) out.push(tx);
    }
    return out;
  }
}

/** True when `a` comes strictly after `b` in ledger order. */
function isAfter(a: StoredTx, b: StoredTx): boolean {
  return a.slot !== b.slot ? a.slot > b.slot : a.txIndex > b.txIndex;
}

/** Index of the first entry not before `tx` in ledger order. */
function positionBefore(list: readonly StoredTx[], tx: StoredTx): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isAfter(tx, list[mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBoundSlot(list: readonly StoredTx[], slot: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].slot <= slot) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
