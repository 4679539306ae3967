/**
 * Typed access to the Hadron golden vectors in test/fixtures/hadron (copies of
 * shared/fixtures/hadron). Test-only: the fixtures are data, so this is the one place libs/domain
 * reaches outside itself.
 */
import accountsJson from '../../../../../test/fixtures/hadron/accounts.json';
import instructionsJson from '../../../../../test/fixtures/hadron/instructions.json';
import pdasJson from '../../../../../test/fixtures/hadron/pdas.json';

export interface EncodedData {
  name: string;
  program: string;
  program_version: 'v1' | 'v2';
  data_base64: string;
  data_hex: string;
  data_base58: string;
  data_len: number;
}

export interface InstructionCase extends EncodedData {
  confidence: string;
  note?: string;
  expected: Record<string, unknown> & { tag: number; instruction: string };
}

export interface InstructionNegativeCase extends EncodedData {
  expected_error: string;
  /** For truncated / trailing_bytes: the length the tag takes. */
  expected_length?: number;
  /** For unknown_tag: the tag byte. */
  tag?: number;
}

export interface AccountCase {
  name: string;
  kind: 'config' | 'oracle';
  owner: string;
  address: string | null;
  data_len: number;
  data_base64: string;
  expected: Record<string, unknown> & {
    state_name_assumed?: string;
    v2_tail_single_source?: { u64_at_422: string; curve_prefabs_at_430: string };
    derived?: OracleDerived;
  };
}

export interface OracleDerived {
  decimals_x: number;
  decimals_y: number;
  midprice_raw: string;
  midprice_human: string;
  midprice_human_f64: number;
  spread_factor?: string;
  spread_bps?: string;
  spread_bps_f64?: number;
}

export interface AccountNegativeCase {
  name: string;
  kind: 'config' | 'oracle';
  owner: string;
  data_len: number;
  data_base64: string;
  expected_error: string;
}

/** A seed as pdas.json spells it out. */
export type SeedSpec = { utf8: string } | { u64_le_hex: string; value: string } | { pubkey: string };

export interface PdaFixture {
  address: string;
  bump: number;
  seeds?: SeedSpec[];
}

export interface PoolPdaCase {
  program_version: 'v1' | 'v2';
  program: string;
  seed: string;
  /** The seed as the 8 little-endian bytes the PDAs use. */
  seed_le_hex: string;
  mint_x: string;
  mint_y: string;
  config: PdaFixture;
  midprice_oracle: PdaFixture;
  curve_meta: PdaFixture;
  curve_prefabs: PdaFixture;
  curve_updates: PdaFixture;
  pool_fee_config: PdaFixture;
  spread_config: PdaFixture;
  vault_x: PdaFixture & { owner: string; mint: string; token_program: string };
  vault_y: PdaFixture & { owner: string; mint: string; token_program: string };
}

export interface PdaVectors {
  global_fee_config: (PdaFixture & { program: string; program_version: 'v1' | 'v2'; expected_address: string; matches_expected: boolean })[];
  pools: PoolPdaCase[];
  fee_recipient_atas: (PdaFixture & { program_version: 'v1' | 'v2'; fee_recipient: string; mint: string; token_program: string })[];
  third_party_crosschecks: { checks: { what: string; inputs: Record<string, string>; derived: string; third_party_value: string; matches: boolean }[] };
}

export const instructionVectors = instructionsJson as unknown as { cases: InstructionCase[]; negative_cases: InstructionNegativeCase[] };
export const accountVectors = accountsJson as unknown as { cases: AccountCase[]; negative_cases: AccountNegativeCase[] };
export const pdaVectors = pdasJson as unknown as PdaVectors;

export const bytesOf = (c: { data_base64: string }): Uint8Array => new Uint8Array(Buffer.from(c.data_base64, 'base64'));
