import { assertNever, type HadronEvent } from '@hadron/contracts';
import { splitProblem, swapProblem } from '@hadron/domain';
import { PoisonEventError } from '../projection';

/**
 * Facts the contract (zod) cannot express but every projection relies on. All projections run the
 * same checks, so a poison event is dead-lettered by every consumer group alike and no read model
 * holds a fact the others refused.
 */
export function assertApplicable(e: HadronEvent): void {
  const problem = eventProblem(e);
  if (problem) throw new PoisonEventError(e.id, problem);
}

function eventProblem(e: HadronEvent): string | null {
  switch (e.type) {
    case 'PoolDiscovered':
    case 'PoolConfigChanged':
      return e.data.tokenX.mint === e.data.tokenY.mint ? `token X and token Y are the same mint (${e.data.tokenX.mint})` : null;
    case 'MidpriceUpdated': {
      const { instruction, midpriceQ32, spreadFactorQ32 } = e.data;
      if (midpriceQ32 === '0') return 'midpriceQ32 is 0 (the program rejects a zero midprice)';
      if (instruction !== 'UpdateBaseSpread' && midpriceQ32 === null) return `${instruction} without a midpriceQ32`;
      if (instruction !== 'UpdateMidprice' && spreadFactorQ32 === null) return `${instruction} without a spreadFactorQ32`;
      return null;
    }
    case 'SwapExecuted': {
      const d = e.data;
      return swapProblem({
        side: d.side,
        inputMint: d.inputMint,
        outputMint: d.outputMint,
        feeMint: d.feeMint,
        amountIn: BigInt(d.amountIn),
        amountInToVault: BigInt(d.amountInToVault),
        feeRaw: BigInt(d.feeRaw),
        decimalsX: d.decimalsX,
        decimalsY: d.decimalsY,
        midpriceQ32: d.midpriceQ32 === null ? null : BigInt(d.midpriceQ32),
        feeSplit: d.feeSplit,
      });
    }
    case 'VaultBalancesChanged':
    case 'TokenMetadataChanged':
      return null;
    case 'FeeSplitChanged':
      return splitProblem(e.data.recipients);
    default:
      return assertNever(e);
  }
}

/** Unix seconds used for bucketing. A fact without block time is bucketed at 0: it counts in `all`, never in a time window. */
export function effectiveTime(e: { blockTime: number | null }): number {
  return e.blockTime ?? 0;
}

/** Keeps the first delivery of each event id (a log may carry duplicates; projections key by id). */
export function firstOfEachId<T extends { event: { id: string } }>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const d of items) {
    if (seen.has(d.event.id)) continue;
    seen.add(d.event.id);
    out.push(d);
  }
  return out;
}
