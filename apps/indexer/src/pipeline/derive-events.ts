import type { HadronEvent } from '@hadron/contracts';
import { decodeTransaction, type DecodeContext } from '../decode';
import { configFingerprint, type AccountState } from '../discovery/pool-accounts';
import type { AccountsSnapshot } from '../discovery/pool-reader';
import type { ItemResult, WireTransaction } from '../source/solana-rpc';
import type { GapRow, HeldTx, ProgramCursor, RecordedProblem } from '../store/indexer-store';
import { scanTransaction, type AdminScan } from './admin-scan';
import { attribute, splitChanged, type At, type PoolAttribution } from './attribution';
import type { TxRef } from './chain-order';
import type { EventBuilder, ObservationPosition } from './event-builder';
import { factsFor } from './held-pools';
import { adoptOracle, canonicalSplit, type PoolRecord, type TrackedState } from './pool-state';

/**
 * decode → build, pure: the events (and gaps, problems, held rows) a chunk of fetched transactions
 * yields, given the pools' state before it. The live path, the held-pool replay and the gap ledger
 * all derive their events here; only what they pass differs.
 */

/** Transactions fetched for a chunk, in chain order. */
export interface Fetched {
  refs: TxRef[];
  txs: Map<string, ItemResult<WireTransaction>>;
  /** Slots whose block the RPC will never serve (skipped / not in storage): list order kept, txIndex null. */
  problems: RecordedProblem[];
}

export interface ChunkOutput {
  events: HadronEvent[];
  gaps: GapRow[];
  problems: RecordedProblem[];
  lastSignature: string | null;
  /** Events of pools whose program had a transaction in the gap ledger when they were built. */
  builtWithOpenGap: number;
  /** Transactions naming a held pool (their part of it waits for the pool). */
  held?: HeldTx[];
  /** Held pools announced now, their held transactions replayed. */
  released?: string[];
}

export interface DeriveContext {
  decode: DecodeContext;
  /** The pools' records: their tracked state moves on as the chunk's events are built. */
  pools: Map<string, PoolRecord>;
  builder: EventBuilder;
  /** Facts about a pool this refuses are set aside (held rows), not built. */
  admits: (config: string | null) => boolean;
  /** Lookahead attribution of what the snapshot read (attributionPlan), with that snapshot. */
  plan?: Map<string, PoolAttribution> | null;
  snapshot?: AccountsSnapshot | null;
  /** Per program, every signature its listing named (a gap belongs to those programs' pools). */
  listed?: ReadonlyMap<string, readonly ProgramCursor[]>;
  /** Open gap-ledger transactions per program. */
  openGapPrograms?: ReadonlyMap<string, number>;
  /** A transaction that may have written a fee config makes the split unknown (the live path); a replay follows no writes. */
  followSplitWrites: boolean;
  /** Build every Initialize the transaction holds, `admits` or not: the gap ledger (only the facts decide whether it waits). */
  keepAllInitializes?: boolean;
}

/** A chunk's output, how many transactions were built, and the seconds decodeTransaction took of it (the stage timings). */
export type DerivedChunk = ChunkOutput & { held: HeldTx[]; transactions: number; decodeSeconds: number };

export function deriveEvents(f: Fetched, c: DeriveContext): DerivedChunk {
  const { pools, plan, snapshot, builder } = c;
  const events: HadronEvent[] = [];
  const gaps: GapRow[] = [];
  const problems: RecordedProblem[] = [...f.problems];
  let lastSignature: string | null = null;
  // Programs with a transaction in the gap ledger: their pools' events may miss its effect (README: gaps).
  const gapPrograms = new Set([...(c.openGapPrograms ?? [])].filter(([, n]) => n > 0).map(([p]) => p));
  let builtWithOpenGap = 0;
  let transactions = 0;
  let decodeMs = 0;
  const held: HeldTx[] = [];
  for (const [i, ref] of f.refs.entries()) {
    lastSignature = ref.signature;
    const res = f.txs.get(ref.signature);
    if (!res?.ok) {
      const error = res ? `${res.failure.message} (after ${res.attempts} attempts)` : 'not fetched';
      const programs = programsListing(c.listed ?? new Map(), ref.signature);
      gaps.push({ signature: ref.signature, slot: ref.slot, txIndex: ref.txIndex, attempts: 0, lastError: error, state: trackedStates(pools), programs });
      for (const p of programs) gapPrograms.add(p);
      continue;
    }
    const before = events.length;
    const tx = res.value;
    const scan: AdminScan = scanTransaction(tx);
    const pos = { signature: ref.signature, slot: ref.slot, blockTime: tx.blockTime ?? ref.blockTime, txIndex: ref.txIndex };
    const decodeStarted = performance.now();
    const decoded = decodeTransaction(tx, c.decode);
    decodeMs += performance.now() - decodeStarted;
    const own = factsFor(decoded, c.keepAllInitializes ? [] : scan.initializes, c.admits);
    const initializes = c.keepAllInitializes ? scan.initializes : own.initializes;
    for (const pool of own.refused) held.push({ pool, signature: ref.signature, slot: ref.slot, position: i, txIndex: ref.txIndex, blockTime: pos.blockTime });
    const obs: ObservationPosition = { slot: ref.slot, blockTime: pos.blockTime, signature: ref.signature, txIndex: ref.txIndex };
    // A new pool nothing in the batch wrote: what was read at C held before this transaction too.
    if (plan && snapshot) {
      for (const a of plan.values()) {
        if (a.discoverAt !== i || !a.discoverBefore) continue;
        const r = pools.get(a.config)!;
        const state = snapshot.pools[a.config];
        events.push(...builder.discovered(r, state, obs, oracleOf(r.tracked)));
        r.tracked.split = state.fee ? canonicalSplit(state.fee.split) : null;
      }
    }
    const built = builder.transaction(own.facts, pos, initializes);
    events.push(...built.events);
    problems.push(...built.problems.map((p) => ({ ...p, slot: ref.slot })));
    transactions++;
    if (c.followSplitWrites) {
      // A transaction that may have written a fee config: the split in effect is unknown from here…
      for (const r of pools.values()) {
        const observedFee = snapshot?.pools[r.static.config]?.feeConfig;
        if (scan.written.has(r.static.config) || scan.written.has(r.published.feeConfig) || (observedFee !== undefined && scan.written.has(observedFee)))
          r.tracked.split = null;
      }
    }
    // …until the snapshot says what it is after the last such write (lookahead attribution).
    if (plan && snapshot) {
      for (const a of plan.values()) {
        const r = pools.get(a.config)!;
        const state = snapshot.pools[a.config];
        if (a.discoverAt === i && !a.discoverBefore) events.push(...builder.discovered(r, state, obs, oracleOf(r.tracked)));
        if (a.configChangeAt === i) events.push(builder.configChanged(r, state, obs, oracleOf(r.tracked)));
        if (a.splitAt === i && !a.discoverBefore) {
          if (a.discoverAt === null && splitChanged(state, r.published)) events.push(builder.feeSplit(r, state, obs));
          r.tracked.split = state.fee ? canonicalSplit(state.fee.split) : null;
        }
      }
    }
    if (gapPrograms.size > 0) builtWithOpenGap += events.slice(before).filter((e) => gapPrograms.has(pools.get(e.pool)?.static.programId ?? '')).length;
  }
  return { events, gaps, problems, lastSignature, builtWithOpenGap, held, transactions, decodeSeconds: decodeMs / 1000 };
}

/** Lookahead attribution for every pool the snapshot read (`announced`: the pools published before this cycle). */
export function attributionPlan(
  snapshot: AccountsSnapshot,
  pools: ReadonlyMap<string, PoolRecord>,
  announced: ReadonlyMap<string, unknown>,
  f: Fetched,
): Map<string, PoolAttribution> {
  const scans = f.refs.map((r) => {
    const res = f.txs.get(r.signature);
    return res?.ok ? scanTransaction(res.value) : null;
  });
  const inputs = [...pools.values()]
    .filter((r) => snapshot.pools[r.static.config] !== undefined)
    .map((r) => ({ pool: r.static, observed: snapshot.pools[r.static.config], published: announced.has(r.static.config) ? r.published : null }));
  return new Map(attribute(inputs, scans).map((a) => [a.config, a]));
}

/**
 * What the snapshot at C says takes effect at C: remaining changes, the oracle state, the split.
 * `known`: the pools published before this cycle; `announcedNow`: new pools already announced by it.
 */
export function applyAtEnd(
  snapshot: AccountsSnapshot,
  targetSlot: number,
  pools: Map<string, PoolRecord>,
  known: ReadonlyMap<string, unknown>,
  builder: EventBuilder,
  at: ObservationPosition,
  announcedNow: ReadonlySet<string>,
  plan?: Map<string, PoolAttribution>,
): HadronEvent[] {
  const events: HadronEvent[] = [];
  for (const r of pools.values()) {
    const state = snapshot.pools[r.static.config];
    if (!state) continue;
    const isNew = !known.has(r.static.config);
    const a = plan?.get(r.static.config);
    const oracle = oracleOf(state.oracle);
    if (isNew && !announcedNow.has(r.static.config) && (!a || a.discoverAt === 'end')) events.push(...builder.discovered(r, state, at, oracle));
    if (!isNew) {
      const configAt: At | null = a ? a.configChangeAt : configChangedAtEnd(state, r.published) ? 'end' : null;
      if (configAt === 'end') events.push(builder.configChanged(r, state, at, oracle));
      const splitAt: At = a ? a.splitAt : 'end';
      if (splitAt === 'end' && splitChanged(state, r.published)) events.push(builder.feeSplit(r, state, at));
    }
    // The snapshot is the state after every write up to C: adopt it (unless that read is older than an update applied).
    if (state.oracle) adoptOracle(r.tracked, state.oracle);
    r.tracked.split = state.fee ? canonicalSplit(state.fee.split) : null;
    r.published = state;
    if (isNew) r.discoveredSlot = targetSlot;
  }
  return events;
}

/** Listed-late transactions as gap rows: the gap ledger indexes them with the state at the cursor. */
export function lateGaps(late: readonly (TxRef & { programs: string[] })[], pools: ReadonlyMap<string, PoolRecord>): GapRow[] {
  const state = trackedStates(pools);
  return late.map((r) => ({
    signature: r.signature,
    slot: r.slot,
    txIndex: null,
    attempts: 0,
    lastError: 'listed late: missing from the listing when its slot was indexed (signature index behind the bank)',
    state,
    programs: r.programs,
  }));
}

/** The programs whose listing named `signature` (a gap belongs to those programs' pools). */
export function programsListing(listed: ReadonlyMap<string, readonly ProgramCursor[]>, signature: string): string[] {
  return [...listed].filter(([, all]) => all.some((c) => c.signature === signature)).map(([program]) => program);
}

export function oracleOf(o: { midpriceQ32: string | null; spreadFactorQ32: string | null } | null): {
  midpriceQ32: string | null;
  spreadFactorQ32: string | null;
} {
  return { midpriceQ32: o?.midpriceQ32 ?? null, spreadFactorQ32: o?.spreadFactorQ32 ?? null };
}

function configChangedAtEnd(observed: AccountState, published: AccountState): boolean {
  return configFingerprint(observed) !== configFingerprint(published);
}

export function trackedStates(pools: ReadonlyMap<string, PoolRecord>): Record<string, TrackedState> {
  const out: Record<string, TrackedState> = {};
  for (const [config, r] of pools) out[config] = structuredClone(r.tracked);
  return out;
}
