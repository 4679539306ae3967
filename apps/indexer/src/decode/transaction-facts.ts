import type { HadronDecodeErrorCode, HadronProgramVersion } from '@hadron/domain';

/**
 * What one transaction says about Hadron pools: plain data, u64 as decimal strings. Field names
 * are camelCase, like every TypeScript field (README, the house rules); the golden vectors
 * (test/fixtures/hadron/swap-transactions.json) and the simulator's ground truth name the same
 * fields in snake_case, converted at the test boundary (decode/testing: `factFromVector`, `camelCased`).
 */

export interface InstructionLocation {
  topLevelIndex: number;
  /** Position among the top-level instruction's inner instructions; null when top level. */
  innerIndex: number | null;
}

interface InstructionFactBase {
  /** `signature:ixIndex[:innerIndex]` (DESIGN §3). */
  eventId: string;
  program: string;
  programVersion: HadronProgramVersion;
  signature: string;
  slot: number;
  blockTime: number | null;
  instructionLocation: InstructionLocation;
}

export interface SwapFact extends InstructionFactBase {
  kind: 'swap';
  poolConfig: string;
  midpriceOracle: string;
  /** As sent: any non-zero value sells X. */
  isX: number;
  side: 'sell' | 'buy';
  inputMint: string;
  outputMint: string;
  trader: string;
  userSource: string;
  userDest: string;
  vaultSource: string;
  vaultDest: string;
  /** The fee recipient's ATA of the input mint. */
  feeRecipientAta: string;
  instructionArgs: { amountIn: string; minOut: string; expiration: string };
  /** Gross input taken from the user. */
  amountIn: string;
  /** amountIn − fee, what reached the input vault. */
  amountInToVault: string;
  amountOut: string;
  protocolFeeRaw: string;
  protocolFeeMint: string;
  vaultX: string;
  vaultY: string;
  /** Balances at the end of the transaction (postTokenBalances); null if the vault is not listed. */
  vaultXAfter: string | null;
  vaultYAfter: string | null;
}

export interface OracleUpdateFact extends InstructionFactBase {
  kind: 'oracle_update';
  tag: 5 | 9 | 10;
  instruction: 'UpdateMidprice' | 'UpdateBaseSpread' | 'UpdateMidpriceAndBaseSpread';
  oracle: string;
  quotingAuthority: string;
  sequence: string;
  /** Null when the instruction leaves it unchanged (tag 9). */
  midpriceQ32: string | null;
  /** Null when the instruction leaves it unchanged (tag 5). */
  spreadFactorQ32: string | null;
  /** Null when the oracle belongs to no known pool. */
  poolConfigViaRegistry: string | null;
}

/**
 * End-of-transaction vault balances of a known pool whose vault balance a Hadron transaction
 * changed (post ≠ pre for at least one of its two vaults; a vault the transaction creates counts
 * as 0 before).
 */
export interface VaultBalancesFact {
  kind: 'vault_balances';
  poolConfig: string;
  signature: string;
  slot: number;
  blockTime: number | null;
  vaultX: string;
  vaultY: string;
  /** Null when that vault is not in the transaction's token balances (its balance did not change). */
  vaultXAfter: string | null;
  vaultYAfter: string | null;
}

export type DecodeProblemCode =
  | HadronDecodeErrorCode
  /** Fewer accounts than the instruction's layout names, or an index past the key list. */
  | 'missing_accounts'
  /** A swap on a config the context does not know: discover the pool, then decode again. */
  | 'unknown_pool'
  /** Neither the swap's own transfers nor unambiguous balance deltas gave its amounts. */
  | 'unresolved_amounts'
  /** The swap's own transfers move a different gross input than its amount_in argument (they are equal on chain [C]). */
  | 'inconsistent_amounts'
  /** The RPC returned no status metadata: success and balances are unknown. */
  | 'missing_meta'
  /** The result is not shaped like a getTransaction result (null, missing fields, a non-u64 token amount). */
  | 'malformed_transaction';

/** A Hadron instruction that yielded no fact, and why. Recorded, never thrown. */
export interface DecodeProblem {
  code: DecodeProblemCode;
  message: string;
  eventId: string;
  instructionLocation: InstructionLocation | null;
  /** The pool config the instruction names, when known. */
  poolConfig: string | null;
}

export interface TransactionFacts {
  signature: string;
  slot: number;
  blockTime: number | null;
  /** Swaps and oracle updates, in execution order. */
  events: (SwapFact | OracleUpdateFact)[];
  vaultBalances: VaultBalancesFact[];
  problems: DecodeProblem[];
}
