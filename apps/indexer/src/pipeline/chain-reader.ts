import type { Cluster } from '@hadron/contracts';
import type { ClusterSettings } from '../config/indexer.config';
import { HADRON_PROGRAMS } from '../discovery/pool-reader';
import type { SignatureInfo, SolanaRpc } from '../source/solana-rpc';
import type { ClusterProgress, ProgramCursor, RecordedProblem } from '../store/indexer-store';
import { applyBlockPositions, mergeInChainOrder, slotsNeedingPositions, type ListedSignature, type TxRef } from './chain-order';
import { beforeRangeStart, type LateRef, type Listing, type PagedListing, type RangeListing } from './cycle-plan';
import type { Fetched } from './derive-events';
import type { IndexerObserver } from './indexer-observer';

/** getBlock errors that do not pass with time: the node has no block for that slot. */
const BLOCK_GONE_CODES = new Set([-32007, -32009]);

export interface ChainReaderDeps {
  cluster: Cluster;
  settings: ClusterSettings;
  rpc: SolanaRpc;
  observer: IndexerObserver;
  /** The durable progress (its cursor and program cursors bound a listing). */
  progress: () => ClusterProgress;
  stopping: () => boolean;
}

/** Reading the chain for a cycle: its range listed (in full, paged, or window by window), and its transactions fetched. */
export class ChainReader {
  constructor(private readonly d: ChainReaderDeps) {}

  /**
   * Successful signatures of both programs in (cursor, target], chain order. The first run lists
   * back to the backfill start (a slot or a block time); later ones stop at the cursor (`until`).
   * Up to `keep` signatures the range is held in full; past that only page boundaries are kept
   * (PagedListing) and the range is listed again window by window as it is processed.
   */
  async list(
    target: number,
    bounds: { rangeStartSlot: number | null; rangeStartTime: number | null; afterSlot?: number; until?: ReadonlyMap<string, ProgramCursor> },
    keep: number = this.d.settings.chunkTxs,
  ): Promise<RangeListing> {
    const started = performance.now();
    const pageSize = this.d.settings.signaturePage;
    const afterSlot = bounds.afterSlot ?? this.d.progress().throughSlot;
    let lists: ListedSignature[][] | null = [];
    let listed: Map<string, ProgramCursor[]> | null = new Map();
    let held = 0;
    const newest = new Map<string, ProgramCursor>();
    const boundaries = new Map<string, ProgramCursor[]>();
    const untils = new Map<string, string | undefined>();
    const late = new Map<string, LateRef>();
    let count = 0;
    let first: TxRef | null = null;
    for (const { programId } of HADRON_PROGRAMS) {
      const until = afterSlot === null ? undefined : (bounds.until ?? this.d.progress().programCursors).get(programId)?.signature;
      untils.set(programId, until);
      const list: ListedSignature[] = [];
      const all: ProgramCursor[] = [];
      const pages: ProgramCursor[] = [];
      // minContextSlot: a node that has not reached the target yet answers -32016 (retried) instead of listing less.
      for await (const page of this.signaturePages(programId, { until, minContextSlot: target })) {
        let done = false;
        for (const s of page) {
          if (s.slot > target) continue;
          const ok = s.err === null || s.err === undefined;
          if (afterSlot !== null && s.slot <= afterSlot) {
            // The RPC stops at `until` (the program's cursor) by itself: what it still returns at or
            // below the indexed slot was not listed when that slot was indexed.
            if (until === undefined) {
              done = true;
              break;
            }
            all.push({ slot: s.slot, signature: s.signature });
            if (ok) {
              const known = late.get(s.signature);
              if (known) known.programs.push(programId);
              else late.set(s.signature, { signature: s.signature, slot: s.slot, blockTime: s.blockTime, txIndex: null, programs: [programId] });
            }
            continue;
          }
          if (afterSlot === null && beforeRangeStart(s, bounds)) {
            done = true;
            break;
          }
          if (!newest.has(programId)) newest.set(programId, { slot: s.slot, signature: s.signature });
          if (ok) {
            count++;
            if (!first || s.slot < first.slot) first = { signature: s.signature, slot: s.slot, blockTime: s.blockTime, txIndex: null };
          }
          if (lists) {
            all.push({ slot: s.slot, signature: s.signature });
            list.push(s);
            held++;
          }
        }
        if (page.length === pageSize) pages.push({ slot: page[page.length - 1].slot, signature: page[page.length - 1].signature });
        if (lists && held > keep) {
          // Too large to hold: from here on only page boundaries.
          lists = null;
          listed = null;
          list.length = 0;
          all.length = 0;
        }
        if (done) break;
      }
      boundaries.set(programId, pages);
      if (lists && listed) {
        lists.push(list);
        listed.set(programId, all);
      }
    }
    if (this.d.stopping()) throw new Error('stopping');
    this.d.observer.stage('listing', (performance.now() - started) / 1000);
    const lateRefs = [...late.values()].sort((a, b) => a.slot - b.slot);
    if (lists && listed) return { kind: 'full', refs: mergeInChainOrder(lists), newest, listed, late: lateRefs };
    const { rangeStartSlot, rangeStartTime } = bounds;
    return { kind: 'paged', target, afterSlot, rangeStartSlot, rangeStartTime, until: untils, boundaries, newest, late: lateRefs, count, first };
  }

  /** A range that must be held in full (one lookahead batch). */
  async listFull(target: number, bounds: Parameters<ChainReader['list']>[1]): Promise<Listing> {
    const listing = await this.list(target, bounds, Number.POSITIVE_INFINITY);
    if (listing.kind !== 'full') throw new Error('unreachable: a listing without a size limit is held in full');
    return listing;
  }

  /**
   * The range as slot windows, oldest first. A paged range's window ends are its page boundaries'
   * slots (and the target): each window holds about a page per program, listed again from the
   * boundary above it, so memory stays bounded however long the range.
   */
  async *windows(listing: RangeListing): AsyncGenerator<Listing> {
    if (listing.kind === 'full') {
      yield listing;
      return;
    }
    const ends = [...new Set([...[...listing.boundaries.values()].flat().map((b) => b.slot), listing.target])]
      .filter((slot) => slot <= listing.target)
      .sort((a, b) => a - b);
    let lo = listing.afterSlot ?? -1;
    for (const hi of ends) {
      if (hi <= lo) continue;
      const started = performance.now();
      const lists: ListedSignature[][] = [];
      const listed = new Map<string, ProgramCursor[]>();
      for (const { programId } of HADRON_PROGRAMS) {
        const entries = await this.listWindow(listing, programId, lo, hi);
        lists.push(entries);
        listed.set(
          programId,
          entries.map((e) => ({ slot: e.slot, signature: e.signature })),
        );
      }
      this.d.observer.listingWindow(lists.reduce((n, l) => n + l.length, 0));
      const refs = mergeInChainOrder(lists);
      this.d.observer.stage('listing_window', (performance.now() - started) / 1000);
      yield { kind: 'full', refs, newest: new Map(), listed, late: [] };
      lo = hi;
    }
  }

  /** One program's signatures with slot in (lo, hi], newest first, listed from its page boundary just above hi. */
  private async listWindow(listing: PagedListing, programId: string, lo: number, hi: number): Promise<ListedSignature[]> {
    // Boundaries are newest first: start from the oldest one still above the window.
    const before = (listing.boundaries.get(programId) ?? []).filter((b) => b.slot > hi).pop()?.signature;
    const out: ListedSignature[] = [];
    pages: for await (const page of this.signaturePages(programId, { before, until: listing.until.get(programId), minContextSlot: listing.target })) {
      for (const s of page) {
        if (s.slot > hi) continue;
        if (s.slot <= lo || (listing.afterSlot === null && beforeRangeStart(s, listing))) break pages;
        out.push(s);
      }
    }
    if (this.d.stopping()) throw new Error('stopping');
    return out;
  }

  /** A program's getSignaturesForAddress pages, newest first, until a short page (or the caller stops reading, or the indexer stops). */
  private async *signaturePages(programId: string, opts: { before?: string; until?: string; minContextSlot: number }): AsyncGenerator<SignatureInfo[]> {
    const limit = this.d.settings.signaturePage;
    let before = opts.before;
    while (!this.d.stopping()) {
      const page = await this.d.rpc.getSignaturesForAddress(programId, { before, until: opts.until, limit, minContextSlot: opts.minContextSlot });
      yield page;
      if (page.length < limit) return;
      before = page[page.length - 1].signature;
    }
  }

  /** Block positions (when needed) and the transactions, batched; failures stay in the map. */
  async fetch(refs: readonly TxRef[]): Promise<Fetched> {
    if (refs.length === 0) return { refs: [], txs: new Map(), problems: [] };
    const started = performance.now();
    const slots = slotsNeedingPositions(refs, this.d.settings.positions);
    const positions = new Map<number, string[]>();
    const problems: RecordedProblem[] = [];
    if (slots.length > 0) {
      const blocks = await this.d.rpc.getBlockSignatures(slots);
      blocks.forEach((b, i) => {
        if (b.ok) return void positions.set(slots[i], b.value);
        // A block the node will never serve: the listing's order stands (txIndex unknown) rather than retrying forever.
        if (b.failure.details.code !== undefined && BLOCK_GONE_CODES.has(b.failure.details.code)) {
          problems.push({
            code: 'positions_unavailable',
            message: `${b.failure.message}: transactions kept in listing order, txIndex null`,
            eventId: `slot:${slots[i]}:positions`,
            poolConfig: null,
            slot: slots[i],
          });
          return;
        }
        throw b.failure; // positions decide event content: no guessing, retry the cycle
      });
    }
    const ordered = applyBlockPositions([...refs], positions);
    const results = await this.d.rpc.getTransactions(ordered.map((r) => r.signature));
    this.d.observer.stage('fetch', (performance.now() - started) / 1000);
    return { refs: ordered, txs: new Map(ordered.map((r, i) => [r.signature, results[i]])), problems };
  }
}
