import { decodeTransaction, type DecodeContext, type OracleUpdateFact } from '../decode';
import type { SolanaRpc } from '../source/solana-rpc';

/**
 * The oracle state in effect just before the backfill range, for a pool first seen now: walk the
 * oracle's own signatures back from the range's first transaction and take the newest successful
 * update that set the midprice, and the newest that set the spread factor. Bounded: after
 * `maxSignatures` without finding one, that field stays unknown (null on swaps until an update).
 */
export async function lookbackOracleState(
  rpc: SolanaRpc,
  oracle: string,
  beforeSignature: string,
  ctx: DecodeContext,
  opts: { maxSignatures?: number; batch?: number } = {},
): Promise<{ midpriceQ32: string | null; spreadFactorQ32: string | null }> {
  const maxSignatures = opts.maxSignatures ?? 300;
  const batch = opts.batch ?? 10;
  let midpriceQ32: string | null = null;
  let spreadFactorQ32: string | null = null;
  let before = beforeSignature;
  for (let seen = 0; seen < maxSignatures; ) {
    const page = await rpc.getSignaturesForAddress(oracle, { before, limit: 100 });
    if (page.length === 0) break;
    seen += page.length;
    const successful = page.filter((s) => s.err === null || s.err === undefined);
    for (let i = 0; i < successful.length; i += batch) {
      const slice = successful.slice(i, i + batch);
      const txs = await rpc.getTransactions(slice.map((s) => s.signature));
      for (const res of txs) {
        if (!res.ok) throw res.failure; // a hole here could hide the latest update: retry the cycle instead
        const updates = decodeTransaction(res.value, ctx).events.filter((e): e is OracleUpdateFact => e.kind === 'oracle_update' && e.oracle === oracle);
        for (const u of updates.reverse()) {
          if (midpriceQ32 === null && u.midprice_q32 !== null) midpriceQ32 = u.midprice_q32;
          if (spreadFactorQ32 === null && u.spread_factor_q32 !== null) spreadFactorQ32 = u.spread_factor_q32;
        }
        if (midpriceQ32 !== null && spreadFactorQ32 !== null) return { midpriceQ32, spreadFactorQ32 };
      }
    }
    if (page.length < 100) break;
    before = page[page.length - 1].signature;
  }
  return { midpriceQ32, spreadFactorQ32 };
}
