import type { Rng } from '../ledger/prng';
import { executeTransaction, type ExecutedTx, type TopLevelInstruction, type TxSpec } from '../ledger/transaction-executor';
import { tokenAccountAmount } from '../spl/spl-accounts';
import { setComputeUnitLimitData, setComputeUnitPriceData } from '../spl/spl-instructions';
import { COMPUTE_BUDGET_PROGRAM } from '../spl/well-known';
import type { FailedTxFact, VaultBalanceChange } from './ground-truth';
import type { MarketContext } from './market-context';
import type { PoolRuntime } from './pool-runtime';

/** Compute-budget prefix: 0, 1 or 2 instructions, so Hadron instruction indexes vary. */
function computeBudget(limit: number, rng: Rng): { instructions: TopLevelInstruction[]; priorityFeeLamports: number } {
  const shape = rng.weighted([
    ['both', 0.7],
    ['price', 0.15],
    ['none', 0.15],
  ] as const);
  if (shape === 'none') return { instructions: [], priorityFeeLamports: 0 };
  const microLamports = BigInt(rng.int(1, 200_000));
  const priorityFeeLamports = Number((BigInt(limit) * microLamports + 999_999n) / 1_000_000n);
  const price: TopLevelInstruction = { programId: COMPUTE_BUDGET_PROGRAM, accounts: [], data: setComputeUnitPriceData(microLamports) };
  if (shape === 'price') return { instructions: [price], priorityFeeLamports };
  return { instructions: [{ programId: COMPUTE_BUDGET_PROGRAM, accounts: [], data: setComputeUnitLimitData(limit) }, price], priorityFeeLamports };
}

/** Runs `spec` behind a compute-budget prefix; `prefix` is how many instructions that added. */
export function run(
  m: MarketContext,
  slot: number,
  spec: Omit<TxSpec, 'computeUnitLimit' | 'priorityFeeLamports'>,
  limit = 200_000,
  rng = m.rng,
): ExecutedTx & { prefix: number } {
  const budget = computeBudget(limit, rng);
  const withBudget: TxSpec = {
    ...spec,
    instructions: [...budget.instructions, ...spec.instructions],
    computeUnitLimit: budget.instructions.length === 2 ? limit : 200_000 * Math.max(1, spec.instructions.length),
    priorityFeeLamports: budget.priorityFeeLamports,
    failure: spec.failure ? { ...spec.failure, instructionIndex: spec.failure.instructionIndex + budget.instructions.length } : undefined,
  };
  return { ...executeTransaction(m.ledger, slot, withBudget), prefix: budget.instructions.length };
}

export function tokenBalance(m: MarketContext, address: string): bigint {
  const state = m.ledger.getAccount(address);
  return state ? tokenAccountAmount(state.data) : 0n;
}

export function recordFailed(m: MarketContext, executed: ExecutedTx, kind: FailedTxFact['kind'], pool: PoolRuntime, reason: FailedTxFact['reason']): void {
  const tx = executed.stored;
  m.truth.failed_transactions.push({
    signature: tx.signature,
    slot: tx.slot,
    block_time: tx.blockTime,
    tx_index: tx.txIndex,
    kind,
    pool_config: pool.fact.config,
    reason,
    err: tx.err,
  });
}

export function recordVaultChange(m: MarketContext, executed: ExecutedTx, pool: PoolRuntime, causes: string[], beforeX: bigint, beforeY: bigint): void {
  const tx = executed.stored;
  const x = tokenBalance(m, pool.addresses.vault_x.address);
  const y = tokenBalance(m, pool.addresses.vault_y.address);
  // Only a transaction that changed a vault balance (post ≠ pre) is a change, whatever its instructions.
  if (x === beforeX && y === beforeY) return;
  const change: VaultBalanceChange = {
    signature: tx.signature,
    slot: tx.slot,
    block_time: tx.blockTime,
    tx_index: tx.txIndex,
    pool_config: pool.fact.config,
    vault_x: pool.addresses.vault_x.address,
    vault_y: pool.addresses.vault_y.address,
    vault_x_before: beforeX.toString(),
    vault_y_before: beforeY.toString(),
    vault_x_after: x.toString(),
    vault_y_after: y.toString(),
    causes,
  };
  m.truth.vault_balance_changes.push(change);
}
