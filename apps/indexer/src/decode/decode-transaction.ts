import { decodeInstructionBase58, HadronDecodeError, type HadronInstruction, type HadronProgramVersion } from '@hadron/domain';
import type { DecodeContext } from './decode-context';
import { eventIdOf, type InstructionFactHeader, type ProblemReporter } from './instruction-header';
import { decodeOracleUpdate } from './oracle-update.decoder';
import type { RpcCompiledInstruction, RpcTransactionResult } from './rpc-transaction';
import type { InstructionRange } from './swap-amounts';
import { decodeSwap } from './swap.decoder';
import type { DecodeProblem, InstructionLocation, OracleUpdateFact, SwapFact, TransactionFacts } from './transaction-facts';
import { shapeProblemOf } from './transaction-shape';
import { TransactionView } from './transaction-view';
import { vaultBalancesOf } from './vault-balances';

/**
 * One getTransaction result → the Hadron facts it proves. Pure and total: a bad instruction, a
 * malformed or missing result becomes a recorded problem, never an exception, so one odd
 * transaction cannot stall a batch. A failed transaction changed nothing and yields nothing.
 */
export function decodeTransaction(result: RpcTransactionResult | null, ctx: DecodeContext): TransactionFacts {
  const malformed = shapeProblemOf(result);
  if (malformed !== null || result === null) return malformedFacts(result, malformed ?? 'the result is null');
  const signature = result.transaction.signatures[0];
  const facts: TransactionFacts = { signature, slot: result.slot, blockTime: result.blockTime ?? null, events: [], vaultBalances: [], problems: [] };
  const { meta } = result;
  if (meta === null) {
    facts.problems.push({
      code: 'missing_meta',
      message: 'the RPC returned no transaction metadata',
      eventId: signature,
      instructionLocation: null,
      poolConfig: null,
    });
    return facts;
  }
  if (meta.err !== null) return facts;
  const tx = new TransactionView(result, meta);
  if (!tx.mentionsHadron) return facts;

  tx.topLevel.forEach((ix, i) => {
    const inner = tx.innerOf(i);
    const version = tx.hadronVersion(ix.programIdIndex);
    // A top-level Hadron instruction invoked everything that ran under it.
    if (version) decodeHadronInstruction(tx, ctx, facts, ix, version, { topLevelIndex: i, innerIndex: null }, { list: inner, from: 0, to: inner.length });
    inner.forEach((cpi, j) => {
      const cpiVersion = tx.hadronVersion(cpi.programIdIndex);
      if (cpiVersion) decodeHadronInstruction(tx, ctx, facts, cpi, cpiVersion, { topLevelIndex: i, innerIndex: j }, invokedBy(inner, j));
    });
  });
  facts.vaultBalances = vaultBalancesOf(tx, ctx);
  return facts;
}

/** What can still be said about a result that is not shaped like getTransaction's: its signature and slot, when readable. */
function malformedFacts(result: unknown, why: string): TransactionFacts {
  const r = (typeof result === 'object' && result !== null ? result : {}) as { slot?: unknown; blockTime?: unknown; transaction?: { signatures?: unknown } };
  const signatures = typeof r.transaction === 'object' && r.transaction !== null ? r.transaction.signatures : undefined;
  const signature = Array.isArray(signatures) && typeof signatures[0] === 'string' ? signatures[0] : '';
  const slot = typeof r.slot === 'number' && Number.isSafeInteger(r.slot) && r.slot >= 0 ? r.slot : 0;
  const blockTime = typeof r.blockTime === 'number' && Number.isInteger(r.blockTime) ? r.blockTime : null;
  return {
    signature,
    slot,
    blockTime,
    events: [],
    vaultBalances: [],
    problems: [
      { code: 'malformed_transaction', message: `not a getTransaction result: ${why}`, eventId: signature, instructionLocation: null, poolConfig: null },
    ],
  };
}

function decodeHadronInstruction(
  tx: TransactionView,
  ctx: DecodeContext,
  facts: TransactionFacts,
  ix: RpcCompiledInstruction,
  version: HadronProgramVersion,
  location: InstructionLocation,
  invoked: InstructionRange,
): void {
  const eventId = eventIdOf(tx.signature, location);
  const problem: ProblemReporter = (code, message, poolConfig) => ({
    code,
    message,
    eventId,
    instructionLocation: location,
    poolConfig: poolConfig ?? null,
  });
  let args: HadronInstruction;
  try {
    args = decodeInstructionBase58(ix.data);
  } catch (e) {
    if (!(e instanceof HadronDecodeError)) throw e; // a bug, not bad input
    // The transaction succeeded, so the program dispatched this tag. v1's table is 0..24 [C]: a
    // higher tag there means something is wrong. v2 may have added tags (its table is only
    // tentatively the same), so a higher v2 tag in a successful transaction is a real instruction
    // we do not decode — like Deposit, it has no fact of its own and its vault changes still count.
    if (e.code === 'unknown_tag' && version === 'v2') return;
    facts.problems.push(problem(e.code, e.message));
    return;
  }
  if ('kind' in args) return; // known tag without facts of its own (deposits etc. show in vault balances)
  if (!tx.accountsResolve(ix)) {
    facts.problems.push(problem('missing_accounts', 'an account index is outside the key list'));
    return;
  }
  const header: InstructionFactHeader = {
    eventId,
    program: tx.keys[ix.programIdIndex],
    programVersion: version,
    signature: tx.signature,
    slot: tx.result.slot,
    blockTime: tx.result.blockTime ?? null,
    instructionLocation: location,
  };
  let fact: SwapFact | OracleUpdateFact | DecodeProblem;
  switch (args.tag) {
    case 3:
      fact = decodeSwap(tx, ctx, ix, args, header, invoked, problem);
      break;
    case 5:
    case 9:
    case 10:
      fact = decodeOracleUpdate(tx, ctx, ix, args, header, problem);
      break;
    default:
      return; // curve switches: no fact
  }
  if ('code' in fact) facts.problems.push(fact);
  else facts.events.push(fact);
}

/**
 * The inner instructions a CPI'd instruction at `list[j]` invoked: those after it while the stack
 * is deeper than its own level. Without stackHeight (transactions before the field existed) the
 * extent is unknown, so the range is empty and the caller falls back to balance deltas.
 */
function invokedBy(list: readonly RpcCompiledInstruction[], j: number): InstructionRange {
  const level = list[j].stackHeight;
  let to = j + 1;
  if (level !== null && level !== undefined) while (to < list.length && (list[to].stackHeight ?? 0) > level) to++;
  return { list, from: j + 1, to };
}
