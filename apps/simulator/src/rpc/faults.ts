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
}

export const NO_FAULTS: FaultOptions = { rate: 0, kinds: FAULT_KINDS, seed: 'faults', hangMs: 30_000, missingTxRequests: 2 };

export class FaultInjector {
  private rng: Rng;
  private readonly missingCalls = new Map<string, number>();
  private readonly counts: Record<FaultKind, number> = { '429': 0, '5xx': 0, timeout: 0, malformed: 0, 'missing-tx': 0 };

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
