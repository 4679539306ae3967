import type { UpdateBaseSpreadInstruction, UpdateMidpriceAndBaseSpreadInstruction, UpdateMidpriceInstruction } from '@hadron/domain';
import type { DecodeContext } from './decode-context';
import type { InstructionFactHeader, ProblemReporter } from './instruction-header';
import type { RpcCompiledInstruction } from './rpc-transaction';
import type { DecodeProblem, OracleUpdateFact } from './transaction-facts';
import type { TransactionView } from './transaction-view';

type OracleUpdateInstruction = UpdateMidpriceInstruction | UpdateBaseSpreadInstruction | UpdateMidpriceAndBaseSpreadInstruction;

/** Oracle update accounts [C]: 0 quoting authority (signer), 1 oracle, 2 Clock. The config is not among them. */
export function decodeOracleUpdate(
  tx: TransactionView,
  ctx: DecodeContext,
  ix: RpcCompiledInstruction,
  args: OracleUpdateInstruction,
  header: InstructionFactHeader,
  problem: ProblemReporter,
): OracleUpdateFact | DecodeProblem {
  if (ix.accounts.length < 2) return problem('missing_accounts', `an oracle update names 2 accounts or more, got ${ix.accounts.length}`);
  const oracle = tx.keys[ix.accounts[1]];
  return {
    kind: 'oracle_update',
    ...header,
    tag: args.tag,
    instruction: args.instruction,
    oracle,
    quotingAuthority: tx.keys[ix.accounts[0]],
    sequence: args.sequence,
    midpriceQ32: args.tag === 9 ? null : args.midprice_q32,
    spreadFactorQ32: args.tag === 5 ? null : args.spread_factor_q32,
    poolConfigViaRegistry: ctx.poolByOracle.get(oracle) ?? null,
  };
}
