import type { SwapInstruction } from '@hadron/domain';
import type { DecodeContext } from './decode-context';
import type { RpcCompiledInstruction } from './rpc-transaction';
import { amountsFromBalances, amountsFromTransfers, type InstructionRange, type SwapAccounts } from './swap-amounts';
import type { DecodeProblem, SwapFact } from './transaction-facts';
import type { InstructionFactHeader, ProblemReporter } from './instruction-header';
import type { TransactionView } from './transaction-view';

/** Swap accounts [C]: 0/1 token programs, 2 config, 3 oracle, …, 7 user, 8 user_source, 9 vault_source, 10 vault_dest, 11 user_dest, 12 fee_config, 13 fee ATA, 14 Clock, 15 curve_updates. */
const MIN_SWAP_ACCOUNTS = 16;

export function decodeSwap(
  tx: TransactionView,
  ctx: DecodeContext,
  ix: RpcCompiledInstruction,
  args: SwapInstruction,
  header: InstructionFactHeader,
  invoked: InstructionRange,
  problem: ProblemReporter,
): SwapFact | DecodeProblem {
  const a = ix.accounts;
  if (a.length < MIN_SWAP_ACCOUNTS) return problem('missing_accounts', `a swap names ${MIN_SWAP_ACCOUNTS} accounts or more, got ${a.length}`);
  const { keys } = tx;
  const poolConfig = keys[a[2]];
  const pool = ctx.pools.get(poolConfig);
  if (!pool) return problem('unknown_pool', `swap on unknown pool ${poolConfig}`, poolConfig);

  const accounts: SwapAccounts = { config: a[2], userSource: a[8], vaultSource: a[9], vaultDest: a[10], userDest: a[11], feeAta: a[13] };
  const amountIn = BigInt(args.amount_in);
  const amounts =
    amountsFromTransfers(tx, invoked, accounts) ?? (hadronInstructionsTouching(tx, accounts.config) === 1 ? amountsFromBalances(tx, accounts, amountIn) : null);
  if (!amounts) return problem('unresolved_amounts', 'no matching inner transfers, and balance deltas are ambiguous or missing', poolConfig);
  // [C] The user pays exactly amount_in: the fee leg plus the vault leg. Anything else means the
  // transfers were mismatched (or the program is not what we think): report, never publish a guess.
  if (amounts.fee + amounts.toVault !== amountIn) {
    return problem(
      'inconsistent_amounts',
      `the swap's transfers move ${amounts.fee} (fee) + ${amounts.toVault} (to vault) but its amount_in is ${amountIn}`,
      poolConfig,
    );
  }

  // Any non-zero is_x sells X [C]: X flows user → vault_x, Y flows vault_y → user.
  const sells = args.is_x !== 0;
  const inputMint = sells ? pool.mintX : pool.mintY;
  const vaultX = sells ? accounts.vaultSource : accounts.vaultDest;
  const vaultY = sells ? accounts.vaultDest : accounts.vaultSource;
  return {
    kind: 'swap',
    ...header,
    poolConfig,
    midpriceOracle: keys[a[3]],
    isX: args.is_x,
    side: sells ? 'sell' : 'buy',
    inputMint,
    outputMint: sells ? pool.mintY : pool.mintX,
    trader: keys[a[7]],
    userSource: keys[accounts.userSource],
    userDest: keys[accounts.userDest],
    vaultSource: keys[accounts.vaultSource],
    vaultDest: keys[accounts.vaultDest],
    feeRecipientAta: keys[accounts.feeAta],
    instructionArgs: { amountIn: args.amount_in, minOut: args.min_out, expiration: args.expiration },
    amountIn: args.amount_in,
    amountInToVault: amounts.toVault.toString(),
    amountOut: amounts.out.toString(),
    protocolFeeRaw: amounts.fee.toString(),
    protocolFeeMint: inputMint,
    vaultX: keys[vaultX],
    vaultY: keys[vaultY],
    vaultXAfter: tx.postAmount(vaultX)?.toString() ?? null,
    vaultYAfter: tx.postAmount(vaultY)?.toString() ?? null,
  };
}

/** How many Hadron instructions (top level or CPI) name this config account. */
function hadronInstructionsTouching(tx: TransactionView, configIndex: number): number {
  let count = 0;
  const visit = (ix: RpcCompiledInstruction): void => {
    if (tx.hadronVersion(ix.programIdIndex) !== null && ix.accounts.includes(configIndex)) count++;
  };
  tx.topLevel.forEach((ix, i) => {
    visit(ix);
    tx.innerOf(i).forEach(visit);
  });
  return count;
}
