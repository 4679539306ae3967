import { decodeTransaction, type DecodeContext, type OracleUpdateFact } from '../decode';
import type { AccountsSnapshot } from '../discovery/pool-reader';
import type { SolanaRpc, WireTransaction } from '../source/solana-rpc';
import { scanTransaction } from './admin-scan';

/**
 * The oracle state in effect at the start of a range (cursor, C], for a pool first seen now.
 *
 * The oracle read at C is the state after the range. For each field (midprice, spread factor),
 * when nothing in the range sets it, that read is also the value at the start: no RPC at all.
 * Only a field some transaction of the range sets needs the oracle's own history: the newest
 * setter before the range.
 */

export interface OracleStart {
  midpriceQ32: string | null;
  spreadFactorQ32: string | null;
}

export type OracleField = 'midprice' | 'spread';

/**
 * Which fields the range's transactions set on `oracle` (an update naming it, or the Initialize
 * creating its pool, which sets the midprice). `txs` are every transaction of the range.
 */
export function fieldsSetInRange(txs: Iterable<WireTransaction>, pool: { config: string; oracle: string }, ctx: DecodeContext): Set<OracleField> {
  const set = new Set<OracleField>();
  for (const tx of txs) {
    if (scanTransaction(tx).initializes.some((i) => i.config === pool.config)) set.add('midprice');
    for (const e of decodeTransaction(tx, ctx).events) {
      if (e.kind !== 'oracle_update' || e.oracle !== pool.oracle) continue;
      if (e.midpriceQ32 !== null) set.add('midprice');
      if (e.spreadFactorQ32 !== null) set.add('spread');
    }
    if (set.size === 2) break;
  }
  return set;
}

/**
 * The fields a lookback must look for (the range may set them). Exactly those the range's
 * transactions set when every one of them was fetched (`txs`; null = one not served). With one
 * missing — it may be an update — or the range not fetched at all (at-target), only an oracle whose
 * last update is older than the range's first slot says "none"; otherwise both.
 */
export function fieldsMaybeSetInRange(
  range: { firstSlot: number; txs: readonly (WireTransaction | null)[] | null },
  pool: { config: string; oracle: string },
  ctx: DecodeContext,
  oracleRead: { lastUpdateSlot?: string } | null | undefined,
): Set<OracleField> {
  const { txs } = range;
  if (txs && txs.every((tx): tx is WireTransaction => tx !== null)) return fieldsSetInRange(txs, pool, ctx);
  if (oracleRead?.lastUpdateSlot !== undefined && Number(oracleRead.lastUpdateSlot) < range.firstSlot) return new Set();
  return new Set(['midprice', 'spread']);
}

/** The values the oracle read at C gives for the fields not set in the range (null = still to find). */
export function startFromSnapshot(snapshot: AccountsSnapshot, pool: { config: string }, setInRange: ReadonlySet<OracleField>): OracleStart {
  const o = snapshot.pools[pool.config]?.oracle;
  if (!o) return { midpriceQ32: null, spreadFactorQ32: null };
  return {
    midpriceQ32: setInRange.has('midprice') || o.midpriceQ32 === '0' ? null : o.midpriceQ32,
    spreadFactorQ32: setInRange.has('spread') ? null : o.spreadFactorQ32,
  };
}

/**
 * Walks the oracle's own signatures back from the range's first transaction (`before`: its
 * signature and slot) for the newest update that set each field still unknown. Signatures of the
 * range's first slot are skipped: that whole slot is in the range. Reaching the pool's
 * Initialize ends the walk (nothing before it; it set the first midprice). Bounded by
 * `maxSignatures`: what is not found by then stays null (the caller counts it).
 */
export async function lookbackOracleState(
  rpc: SolanaRpc,
  oracle: { config: string; oracle: string },
  before: { signature: string; slot: number },
  ctx: DecodeContext,
  start: OracleStart,
  opts: { maxSignatures?: number; batch?: number } = {},
): Promise<OracleStart> {
  const maxSignatures = opts.maxSignatures ?? 300;
  const batch = opts.batch ?? 10;
  let { midpriceQ32, spreadFactorQ32 } = start;
  let cursor = before.signature;
  for (let seen = 0; seen < maxSignatures && (midpriceQ32 === null || spreadFactorQ32 === null);) {
    const page = await rpc.getSignaturesForAddress(oracle.oracle, { before: cursor, limit: 100 });
    if (page.length === 0) break;
    seen += page.length;
    const successful = page.filter((s) => s.slot < before.slot && (s.err === null || s.err === undefined));
    for (let i = 0; i < successful.length; i += batch) {
      const slice = successful.slice(i, i + batch);
      const txs = await rpc.getTransactions(slice.map((s) => s.signature));
      for (const res of txs) {
        if (!res.ok) throw res.failure; // a hole here could hide the latest update: retry the cycle instead
        const updates = decodeTransaction(res.value, ctx).events.filter((e): e is OracleUpdateFact => e.kind === 'oracle_update' && e.oracle === oracle.oracle);
        for (const u of updates.reverse()) {
          if (midpriceQ32 === null && u.midpriceQ32 !== null) midpriceQ32 = u.midpriceQ32;
          if (spreadFactorQ32 === null && u.spreadFactorQ32 !== null) spreadFactorQ32 = u.spreadFactorQ32;
        }
        const created = scanTransaction(res.value).initializes.find((init) => init.config === oracle.config);
        if (created) return { midpriceQ32: midpriceQ32 ?? (created.initialMidpriceQ32 === '0' ? null : created.initialMidpriceQ32), spreadFactorQ32 };
        if (midpriceQ32 !== null && spreadFactorQ32 !== null) return { midpriceQ32, spreadFactorQ32 };
      }
    }
    if (page.length < 100) break;
    cursor = page[page.length - 1].signature;
  }
  return { midpriceQ32, spreadFactorQ32 };
}
