import type { HadronProgramVersion } from '@hadron/domain';

/**
 * Everything a simulated cluster generated, as plain JSON (u64 as decimal strings). Event records
 * use the field names of fixtures/hadron swap-transactions.json `expected.events` (snake_case), so a
 * decoder's output can be deep-compared with them once their keys are converted to the decoder's
 * camelCase (test/simulator/round-trip); simulator-only fields are listed in SIM_ONLY_SWAP_FIELDS.
 */

export interface InstructionLocation {
  top_level_index: number;
  inner_index: number | null;
}

export interface FeeSplitRecipient {
  recipient: string;
  ppm: number;
}

export interface SwapFact {
  kind: 'swap';
  event_id: string;
  program: string;
  program_version: HadronProgramVersion;
  signature: string;
  slot: number;
  block_time: number;
  instruction_location: InstructionLocation;
  pool_config: string;
  midprice_oracle: string;
  is_x: number;
  side: 'buy' | 'sell';
  input_mint: string;
  output_mint: string;
  trader: string;
  user_source: string;
  user_dest: string;
  vault_source: string;
  vault_dest: string;
  fee_recipient_ata: string;
  instruction_args: { amount_in: string; min_out: string; expiration: string };
  amount_in: string;
  amount_in_to_vault: string;
  amount_out: string;
  protocol_fee_raw: string;
  protocol_fee_mint: string;
  vault_x: string;
  vault_y: string;
  /** postTokenBalances of the vaults (the whole transaction). */
  vault_x_after: string;
  vault_y_after: string;
  // ---- simulator-only ----
  tx_index: number;
  tx_version: 'legacy' | 0;
  /** 'direct' top-level instruction, or 'cpi' under the router program. */
  route: 'direct' | 'cpi';
  /** Vault balances right after this instruction (differs from *_after when a tx swaps twice). */
  vault_x_after_instruction: string;
  vault_y_after_instruction: string;
  /** Oracle state in effect when the swap executed. */
  midprice_q32: string;
  spread_factor_q32: string;
  fee_config: string;
  fee_ppm: number;
  /** Split of the pool's own fee config in effect; null on the global (default) fee config or an empty split. */
  fee_split: FeeSplitRecipient[] | null;
  decimals_x: number;
  decimals_y: number;
}

export const SIM_ONLY_SWAP_FIELDS = [
  'tx_index',
  'tx_version',
  'route',
  'vault_x_after_instruction',
  'vault_y_after_instruction',
  'midprice_q32',
  'spread_factor_q32',
  'fee_config',
  'fee_ppm',
  'fee_split',
  'decimals_x',
  'decimals_y',
] as const;

export interface OracleUpdateFact {
  kind: 'oracle_update';
  event_id: string;
  instruction: 'UpdateMidprice' | 'UpdateBaseSpread' | 'UpdateMidpriceAndBaseSpread';
  tag: 5 | 9 | 10;
  program: string;
  program_version: HadronProgramVersion;
  signature: string;
  slot: number;
  block_time: number;
  instruction_location: InstructionLocation;
  oracle: string;
  quoting_authority: string;
  sequence: string;
  /** null when the instruction did not set it (tag 9 / tag 5). */
  midprice_q32: string | null;
  spread_factor_q32: string | null;
  pool_config_via_registry: string;
  tx_index: number;
}

export interface LiquidityFact {
  kind: 'deposit' | 'withdraw';
  event_id: string;
  signature: string;
  slot: number;
  block_time: number;
  tx_index: number;
  pool_config: string;
  amount_x: string;
  amount_y: string;
  vault_x_after: string;
  vault_y_after: string;
}

/**
 * One per successful transaction that changed a pool's vault balances (any tag): at least one of
 * its vaults holds a different amount after the transaction than before. A transaction that lists
 * the vaults without moving them (or creates them empty) is not a change.
 */
export interface VaultBalanceChange {
  signature: string;
  slot: number;
  block_time: number;
  tx_index: number;
  pool_config: string;
  vault_x: string;
  vault_y: string;
  vault_x_before: string;
  vault_y_before: string;
  vault_x_after: string;
  vault_y_after: string;
  /** Instructions that moved them, e.g. ['swap', 'swap'] or ['deposit']. */
  causes: string[];
}

export interface FeeSplitChange {
  pool_config: string;
  fee_config: string;
  slot: number;
  block_time: number;
  /** The admin transaction, or null for the state at genesis (before history). */
  signature: string | null;
  fee_ppm: number;
  recipients: FeeSplitRecipient[];
}

export interface PoolStateChange {
  slot: number;
  block_time: number;
  signature: string | null;
  state: number;
  state_name: string;
}

export interface FailedTxFact {
  signature: string;
  slot: number;
  block_time: number;
  tx_index: number;
  kind: 'swap' | 'oracle_update';
  pool_config: string;
  reason: 'slippage' | 'pool_not_active' | 'stale_sequence';
  err: unknown;
}

/** Where the chain keeps a token's name and symbol (see MetadataKind in catalog.ts). */
export type TokenMetadataSource = 'metaplex' | 'token-2022' | 'pointer' | 'none';

export interface TokenRename {
  /** Slot of the transaction that rewrote the metadata account. */
  slot: number;
  symbol: string;
  name: string;
  /** What the chain said before it. */
  before: { symbol: string; name: string };
}

export interface TokenFact {
  mint: string;
  /** What the chain's metadata says at the head (NUL padding stripped): '' for a token without metadata. */
  symbol: string;
  name: string;
  decimals: number;
  token_program: string;
  /**
   * The account that holds the name and symbol: the Metaplex PDA, the mint itself (Token-2022
   * TokenMetadata extension), the account the mint's MetadataPointer names, or null (none).
   */
  metadata: string | null;
  metadata_source: TokenMetadataSource;
  uri: string | null;
  /** Every rename on chain so far, oldest first (empty when never renamed). */
  renames: TokenRename[];
}

/** What the chain called a token at `slot` (after every transaction of that slot). */
export function tokenNamesAt(t: TokenFact, slot: number): { symbol: string; name: string } {
  const next = t.renames.find((r) => r.slot > slot);
  return next ? next.before : { symbol: t.symbol, name: t.name };
}

export interface PoolFact {
  config: string;
  program: string;
  program_version: HadronProgramVersion;
  seed: string;
  authority: string;
  quoting_authority: string;
  mint_x: string;
  mint_y: string;
  /** The chain's symbol of each mint at the head, as in `tokens` ('' for a mint without metadata). */
  symbol_x: string;
  symbol_y: string;
  decimals_x: number;
  decimals_y: number;
  token_program_x: string;
  token_program_y: string;
  vault_x: string;
  vault_y: string;
  oracle: string;
  curve_meta: string;
  curve_prefabs: string;
  curve_updates: string;
  spread_config: string | null;
  has_pool_fee: number;
  /** The fee config swaps pass (account 12): the pool's own, or the program's global one. */
  fee_config: string;
  fee_recipient: string;
  lookup_table: string;
  activity: string;
  /** Slot the pool's accounts appeared (genesis = first_slot − 1) and the Initialize tx, if any. */
  created_slot: number;
  created_signature: string | null;
  /** The oracle account at genesis (oracle_updates replay on top of it). */
  initial_oracle: { sequence: string; midprice_q32: string; spread_factor_q32: string; last_update_slot: string };
  state_history: PoolStateChange[];
}

export interface GroundTruth {
  cluster: string;
  seed: string;
  first_slot: number;
  /** Last slot of the generated history (everything up to it is final at start). */
  history_end_slot: number;
  head_slot: number;
  /** router: CPIs swaps (some with a TransferChecked platform fee); keeper: CPIs some oracle updates. */
  programs: { v1: string; v2: string; router: string; keeper: string };
  global_fee_configs: { program_version: HadronProgramVersion; address: string; fee_ppm: number; fee_recipient: string }[];
  tokens: TokenFact[];
  pools: PoolFact[];
  swaps: SwapFact[];
  oracle_updates: OracleUpdateFact[];
  liquidity: LiquidityFact[];
  vault_balance_changes: VaultBalanceChange[];
  fee_split_changes: FeeSplitChange[];
  failed_transactions: FailedTxFact[];
}
