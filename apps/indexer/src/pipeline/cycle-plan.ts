import { backoffDelay } from '@hadron/platform/runtime/backoff';
import type { DecodeContext } from '../decode';
import { decodeTransaction } from '../decode';
import { HADRON_PROGRAMS } from '../discovery/pool-reader';
import type { SignatureInfo } from '../source/solana-rpc';
import type { ProgramCursor } from '../store/indexer-store';
import { scanTransaction } from './admin-scan';
import type { TxRef } from './chain-order';
import type { Fetched } from './derive-events';
import type { PoolRecord } from './pool-state';

/**
 * The cycle planner, pure: what a cycle lists (its range and bounds), when it needs a snapshot,
 * when it holds the cursor for a transaction not served yet, where a commit moves the program
 * cursors, and how long a failure waits. The loop (cluster-indexer.ts) does the I/O it decides.
 */

const MAX_CYCLE_BACKOFF_MS = 30_000;
const MAX_GAP_DELAY_MS = 10 * 60_000;
/** While a pool is held (its mint unreadable), its mints are read again at least this often. */
export const HELD_RETRY_MS = 5_000;

/** A range listed in full: small enough to hold (the live tail), or one window of a paged range. */
export interface Listing {
  kind: 'full';
  refs: TxRef[];
  /** Per program, the newest listed signature (any status) at or below the target. */
  newest: Map<string, ProgramCursor>;
  /** Per program, every listed signature (any status) at or below the target, newest first: a chunk moves the program's cursor to the newest at or below its end. */
  listed: Map<string, ProgramCursor[]>;
  /**
   * Successful transactions the RPC listed only now although their slot is already indexed: an
   * earlier listing missed them (a signature index behind its bank). They go to the gap ledger.
   */
  late: LateRef[];
}

/** A listed-late transaction, with the programs whose listing named it. */
export type LateRef = TxRef & { programs: string[] };

/**
 * A range too large to hold (a backfill: millions of signatures on a busy day), kept as page
 * boundaries only — every page's last signature and slot, per program. It is processed in slot
 * windows, oldest first, each listed again between two boundaries (RangeLister.windows).
 */
export interface PagedListing {
  kind: 'paged';
  target: number;
  /** Exclusive lower bound of the range (the cursor), null on the first run (range start bounds instead). */
  afterSlot: number | null;
  rangeStartSlot: number | null;
  rangeStartTime: number | null;
  /** Per program, the `until` the range was listed with. */
  until: Map<string, string | undefined>;
  /** Per program, the last signature of every full page, newest first. */
  boundaries: Map<string, ProgramCursor[]>;
  newest: Map<string, ProgramCursor>;
  late: LateRef[];
  /** Successful signatures listed (both programs; a transaction of both counts twice). */
  count: number;
  /** The oldest successful transaction of the range. */
  first: TxRef | null;
}

export type RangeListing = Listing | PagedListing;

export interface RangeBounds {
  rangeStartSlot: number | null;
  rangeStartTime: number | null;
}

/** The first run lists back to the backfill start (a slot or a block time); later ones stop at the cursor. */
export function rangeBounds(first: boolean, start: { slot: number } | { time: number } | null | undefined): RangeBounds {
  const range = first ? start : null;
  return { rangeStartSlot: range && 'slot' in range ? range.slot : null, rangeStartTime: range && 'time' in range ? range.time : null };
}

/** When the next snapshot is due: sooner while a pool is held (its mints are read again). */
export function nextSnapshotDue(now: number, heldPools: number, refreshMs: number): number {
  return now + (heldPools > 0 ? Math.min(HELD_RETRY_MS, refreshMs) : refreshMs);
}

/**
 * Why this batch needs a fresh account snapshot: a write to a pool account, or a pool we do not
 * know. A new Initialize is discovered at once; a swap or update naming a pool discovery did not
 * find (it would again, every poll) waits for the refresh interval (`discoveryDue`).
 */
export function snapshotTrigger(
  fetched: Fetched,
  pools: ReadonlyMap<string, PoolRecord>,
  ctx: DecodeContext,
  discoveryDue: boolean,
): 'discover' | 'refresh' | null {
  let refresh = false;
  let unknown = false;
  const watched = new Set<string>();
  for (const r of pools.values()) for (const a of [r.static.config, r.static.oracle, r.static.poolFeeConfig, r.static.globalFeeConfig]) watched.add(a);
  for (const ref of fetched.refs) {
    const res = fetched.txs.get(ref.signature);
    if (!res?.ok) continue;
    const scan = scanTransaction(res.value);
    if (scan.initializes.some((i) => !pools.has(i.config))) return 'discover';
    const facts = decodeTransaction(res.value, ctx);
    if (facts.problems.some((p) => p.code === 'unknown_pool') || facts.events.some((e) => e.kind === 'oracle_update' && e.poolConfigViaRegistry === null))
      unknown = true;
    for (const a of scan.written) if (watched.has(a)) refresh = true;
  }
  if (unknown && discoveryDue) return 'discover';
  return refresh ? 'refresh' : null;
}

/**
 * A transaction the RPC listed but will not serve, even after every retry, is usually a lagging
 * node: the cursor holds (the chunk is retried) for the grace period so its events land in order
 * and exact. Past it the cursor moves on and the transaction goes to the gap ledger.
 * Returns the signatures still held for, and when each unserved one first failed.
 */
export function missingToHold(
  txs: ReadonlyMap<string, { ok: boolean }>,
  firstFailure: ReadonlyMap<string, number>,
  now: number,
  graceMs: number,
): { young: string[]; firstFailure: Map<string, number> } {
  const next = new Map(firstFailure);
  const young: string[] = [];
  for (const [signature, res] of txs) {
    if (res.ok) {
      next.delete(signature);
      continue;
    }
    const first = next.get(signature) ?? now;
    next.set(signature, first);
    if (now - first < graceMs) young.push(signature);
  }
  if (young.length === 0) for (const signature of txs.keys()) next.delete(signature);
  return { young, firstFailure: next };
}

/** A lookahead batch extended to a later snapshot: the second listing's refs come after the first's. */
export function extendListing(held: Listing, more: Listing): Listing {
  return {
    kind: 'full',
    refs: [...held.refs, ...more.refs],
    newest: new Map([...held.newest, ...more.newest]),
    listed: new Map(HADRON_PROGRAMS.map(({ programId }) => [programId, [...(more.listed.get(programId) ?? []), ...(held.listed.get(programId) ?? [])]])),
    late: [...held.late, ...more.late],
  };
}

/** Each program's cursor after a commit through `throughSlot`: its newest listed signature at or below it. */
export function programCursorsAfter(
  cursors: ReadonlyMap<string, ProgramCursor>,
  listed: ReadonlyMap<string, readonly ProgramCursor[]>,
  throughSlot: number,
): Map<string, ProgramCursor> {
  const out = new Map(cursors);
  for (const [program, all] of listed) {
    const c = newestAtOrBelow(all, throughSlot);
    if (c) out.set(program, c);
  }
  return out;
}

/** The newest entry at or below `slot` of a newest-first list. */
export function newestAtOrBelow(list: readonly ProgramCursor[], slot: number): ProgramCursor | null {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].slot > slot) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length ? list[lo] : null;
}

/** The oldest successful transaction of a range. */
export function firstOf(listing: RangeListing): TxRef | null {
  return listing.kind === 'full' ? (listing.refs[0] ?? null) : listing.first;
}

/** What the end-of-range commit moves the program cursors to: each program's newest listed signature. */
export function endOf(listing: RangeListing): Listing {
  if (listing.kind === 'full') return listing;
  return { kind: 'full', refs: [], newest: listing.newest, listed: new Map([...listing.newest].map(([program, c]) => [program, [c]])), late: [] };
}

/** A signature older than the backfill's start (a slot, or a block time). */
export function beforeRangeStart(s: SignatureInfo, bounds: RangeBounds): boolean {
  return (
    (bounds.rangeStartSlot !== null && s.slot < bounds.rangeStartSlot) ||
    (bounds.rangeStartTime !== null && s.blockTime !== null && s.blockTime < bounds.rangeStartTime)
  );
}

/** A failed cycle (or loop) waits before its retry: 0.5 s doubling, at most 30 s. */
export function cycleRetryDelay(failures: number): number {
  return backoffDelay(failures, { baseMs: 500, maxMs: MAX_CYCLE_BACKOFF_MS });
}

/** A gap-ledger transaction not served again waits longer each attempt, at most 10 min. */
export function gapRetryDelay(gapRetryMs: number, attempts: number): number {
  // At most 10 doublings, and never over MAX_GAP_DELAY_MS.
  return backoffDelay(attempts + 1, { baseMs: gapRetryMs, maxMs: Math.min(MAX_GAP_DELAY_MS, gapRetryMs * 1024) });
}
