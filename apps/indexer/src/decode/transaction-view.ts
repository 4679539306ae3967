import { HADRON_PROGRAM_V1, HADRON_PROGRAM_V2, type HadronProgramVersion } from '@hadron/domain';
import type { RpcCompiledInstruction, RpcTokenBalance, RpcTransactionMeta, RpcTransactionResult } from './rpc-transaction';

const NONE: readonly RpcCompiledInstruction[] = [];

/**
 * Index-level access to one successful transaction. Keys are compared as base58 strings and
 * accounts as indexes (a message never lists a key twice), so only instruction data is decoded.
 */
export class TransactionView {
  readonly signature: string;
  /** accountKeys ++ loadedAddresses.writable ++ loadedAddresses.readonly (v0 lookup tables). */
  readonly keys: readonly string[];
  private readonly v1Index: number;
  private readonly v2Index: number;

  constructor(
    readonly result: RpcTransactionResult,
    readonly meta: RpcTransactionMeta,
  ) {
    this.signature = result.transaction.signatures[0];
    const { accountKeys } = result.transaction.message;
    const loaded = meta.loadedAddresses;
    this.keys = loaded && (loaded.writable.length > 0 || loaded.readonly.length > 0) ? [...accountKeys, ...loaded.writable, ...loaded.readonly] : accountKeys;
    // A CPI target can come from a lookup table, so search the full list.
    this.v1Index = this.keys.indexOf(HADRON_PROGRAM_V1);
    this.v2Index = this.keys.indexOf(HADRON_PROGRAM_V2);
  }

  get mentionsHadron(): boolean {
    return this.v1Index >= 0 || this.v2Index >= 0;
  }

  hadronVersion(programIdIndex: number): HadronProgramVersion | null {
    if (programIdIndex === this.v1Index) return 'v1';
    if (programIdIndex === this.v2Index) return 'v2';
    return null;
  }

  get topLevel(): readonly RpcCompiledInstruction[] {
    return this.result.transaction.message.instructions;
  }

  /** The instructions that ran under top-level instruction `index`, in order. */
  innerOf(index: number): readonly RpcCompiledInstruction[] {
    const groups = this.meta.innerInstructions;
    if (groups) for (const group of groups) if (group.index === index) return group.instructions;
    return NONE;
  }

  /** Every account index an instruction names is inside the key list. */
  accountsResolve(ix: RpcCompiledInstruction): boolean {
    for (const a of ix.accounts) if (!(a >= 0 && a < this.keys.length)) return false;
    return true;
  }

  /** Token amount of an account before the transaction; a token account created by it counts as 0. */
  preAmount(accountIndex: number): bigint {
    return amountIn(this.meta.preTokenBalances, accountIndex) ?? 0n;
  }

  /** Token amount after the transaction, or null when the account is not a listed token account. */
  postAmount(accountIndex: number): bigint | null {
    return amountIn(this.meta.postTokenBalances, accountIndex);
  }
}

function amountIn(balances: readonly RpcTokenBalance[] | null | undefined, accountIndex: number): bigint | null {
  if (balances) for (const b of balances) if (b.accountIndex === accountIndex) return BigInt(b.uiTokenAmount.amount);
  return null;
}
