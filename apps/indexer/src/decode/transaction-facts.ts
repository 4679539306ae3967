import type { HadronDecodeErrorCode, HadronProgramVersion } from '@hadron/domain';

/**
 * What one transaction says about Hadron pools: plain data, u64 as decimal strings. Field names
 * follow the golden vectors (fixtures/hadron/swap-transactions.json).
 */

export interface InstructionLocation {
  top_level_index: number;
  /** Position among the top-level instruction's inner instructions; null when top level. */
  inner_index: number | null;
}

interface InstructionFactBase {
  /** `signature:ixIndex[:innerIndex]` (DESIGN §3). */
  event_id: string;
  program: string;
  program_version: HadronProgramVersion;
  signature: string;
  slot: number;
  block_time: number | null;
  instruction_location: InstructionLocation;
}

export interface SwapFact extends InstructionFactBase {
  kind: 'swap';
  pool_config: string;
  midprice_oracle: string;
  /** As sent: any non-zero value sells X. */
  is_x: number;
  side: 'sell' | 'buy';
  input_mint: string;
  output_mint: string;
  trader: string;
  user_source: string;
  user_dest: string;
  vault_source: string;
  vault_dest: string;
  /** The fee recipient's ATA of the input mint. */
  fee_recipient_ata: string;
  instruction_args: { amount_in: string; min_out: string; expiration: string };
  /** Gross input taken from the user. */
  amount_in: string;
  /** amount_in − fee, what reached the input vault. */
  amount_in_to_vault: string;
  amount_out: string;
  protocol_fee_raw: string;
  protocol_fee_mint: string;
  vault_x: string;
  vault_y: string;
  /** Balances at the end of the transaction (postTokenBalances); null if the vault is not listed. */
  vault_x_after: string | null;
  vault_y_after: string | null;
}

export interface OracleUpdateFact extends InstructionFactBase {
  kind: 'oracle_update';
  tag: 5 | 9 | 10;
  instruction: 'UpdateMidprice' | 'UpdateBaseSpread' | 'UpdateMidpriceAndBaseSpread';
  oracle: string;
  quoting_authority: string;
  sequence: string;
  /** Null when the instruction leaves it unchanged (tag 9). */
  midprice_q32: string | null;
  /** Null when the instruction leaves it unchanged (tag 5). */
  spread_factor_q32: string | null;
  /** Null when the oracle belongs to no known pool. */
  pool_config_via_registry: string | null;
}

/**
 * End-of-transaction vault balances of a known pool whose vault balance a Hadron transaction
 * changed (post ≠ pre for at least one of its two vaults; a vault the transaction creates counts
 * as 0 before).
 */
export interface VaultBalancesFact {
  kind: 'vault_balances';
  pool_config: string;
  signature: string;
  slot: number;
  block_time: number | null;
  vault_x: string;
  vault_y: string;
  /** Null when that vault is not in the transaction's token balances (its balance did not change). */
  vault_x_after: string | null;
  vault_y_after: string | null;
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
  event_id: string;
  instruction_location: InstructionLocation | null;
  /** The pool config the instruction names, when known. */
  pool_config: string | null;
}

export interface TransactionFacts {
  signature: string;
  slot: number;
  block_time: number | null;
  /** Swaps and oracle updates, in execution order. */
  events: (SwapFact | OracleUpdateFact)[];
  vault_balances: VaultBalancesFact[];
  problems: DecodeProblem[];
}
