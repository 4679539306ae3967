import { createHash } from 'node:crypto';
import { Rng } from '../ledger/prng';

/**
 * Deterministic RPC faults (DESIGN §7: the indexer must retry and never leave a silent gap).
 * Each HTTP request draws once from a seeded stream: with probability `rate` it gets one of the
 * request-level kinds. `missing-tx` is per signature instead: a fixed, seed-chosen share of
 * transactions answer `null` to their first `missingTxRequests` getTransaction calls.
 */

export const FAULT_KINDS = ['429', '5xx', 'timeout', 'malformed', 'missing-tx'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type RequestFault = Exclude<FaultKind, 'missing-tx'>;

export interface FaultOptions {
  /** Probability that an RPC request is faulted (0 = never). */
  rate: number;
  kinds: readonly FaultKind[];
  /** Seeds the fault stream (independent of the market). */
  seed: string;
  /** How long a `timeout` fault holds the request before dropping the connection. */
  hangMs: number;
  /** Share of signatures that are temporarily missing (defaults to `rate`). */
  missingTxRate?: number;
  /** getTransaction calls that return null for a missing signature before it appears. */
  missingTxRequests: number;
  /**
   * A lagging signature index: getSignaturesForAddress answers from an index that trails the
   * bank by this many slots while the chain moves (its context slot, checked against
   * `minContextSlot`, is the index's), as a load-balanced RPC whose nodes differ does. 0 = off.
   */
  signatureIndexLagSlots?: number;
  /** The index catches up with the bank once the head has not moved for this long. */
  signatureIndexCatchUpMs?: number;
  /**
   * Which slot `minContextSlot` is checked against on a lagging listing: `index` (a node behind
   * the one that answered getSlot) or `bank` (one node whose signature index is written after its
   * bank moved: the check passes while the listing still misses the newest slots).
   */
  signatureIndexContext?: 'index' | 'bank';
}

export const NO_FAULTS: FaultOptions = { rate: 0, kinds: FAULT_KINDS, seed: 'faults', hangMs: 30_000, missingTxRequests: 2 };

const DEFAULT_INDEX_CATCH_UP_MS = 1000;

export class FaultInjector {
  private rng: Rng;
  private readonly missingCalls = new Map<string, number>();
  private readonly counts: Record<FaultKind, number> = { '429': 0, '5xx': 0, timeout: 0, malformed: 0, 'missing-tx': 0 };
  /** Listing calls answered by a lagging index (refused by minContextSlot, or missing the newest slots). */
  private lagged = 0;
  private indexSlot = -1;
  private headSeen = -1;
  private headMovedAt = 0;

  constructor(private options: FaultOptions) {
    this.rng = new Rng(`faults/${options.seed}`);
  }

  configure(options: FaultOptions): void {
    this.options = options;
    this.rng = new Rng(`faults/${options.seed}`);
    this.missingCalls.clear();
  }

  get current(): FaultOptions {
    return this.options;
  }

  /** Faults injected so far, by kind. */
  get injected(): Readonly<Record<FaultKind, number>> {
    return this.counts;
  }

  /** getSignaturesForAddress calls the lagging index answered behind the bank. */
  get signatureIndexLagged(): number {
    return this.lagged;
  }

  /**
   * The newest slot the signature index holds, given the bank's `visible` slot: `lag` slots
   * behind while the head moves, the head itself once it has been still for the catch-up time.
   * Never goes backwards.
   */
  signatureIndexSlot(visible: number, now: number = Date.now()): number {
    const lag = this.options.signatureIndexLagSlots ?? 0;
    if (visible !== this.headSeen) {
      this.headSeen = visible;
      this.headMovedAt = now;
    }
    const caughtUp = now - this.headMovedAt >= (this.options.signatureIndexCatchUpMs ?? DEFAULT_INDEX_CATCH_UP_MS);
    this.indexSlot = Math.max(this.indexSlot, lag <= 0 || caughtUp ? visible : visible - lag);
    return Math.min(this.indexSlot, visible);
  }

  /** Counts a listing answered (or refused) behind the bank. */
  noteIndexLag(): void {
    this.lagged++;
  }

  /** The fault for the next HTTP request, or null. */
  nextRequestFault(): RequestFault | null {
    const kinds = this.options.kinds.filter((k): k is RequestFault => k !== 'missing-tx');
    if (this.options.rate <= 0 || kinds.length === 0) return null;
    if (!this.rng.chance(this.options.rate)) return null;
    const kind = this.rng.pick(kinds);
    this.counts[kind]++;
    return kind;
  }

  /** A 5xx status for a `5xx` fault. */
  nextServerErrorStatus(): number {
    return this.rng.pick([500, 502, 503, 504]);
  }

  /** True when this getTransaction call must pretend the signature is unknown. */
  hideTransaction(signature: string): boolean {
    if (!this.options.kinds.includes('missing-tx')) return false;
    const rate = this.options.missingTxRate ?? this.options.rate;
    if (rate <= 0) return false;
    const h = createHash('sha256').update(`${this.options.seed}/missing/${signature}`).digest().readUInt32LE(0) / 2 ** 32;
    if (h >= rate) return false;
    const calls = (this.missingCalls.get(signature) ?? 0) + 1;
    this.missingCalls.set(signature, calls);
    if (calls > this.options.missingTxRequests) return false;
    this.counts['missing-tx']++;
    return true;
  }
}
