/**
 * Every well-known Solana address the indexer names (programs, sysvars, PDA seeds), declared
 * once. apps/indexer/src/well-known-addresses.spec.ts checks each against the team's
 * independently sourced list (test/fixtures/solana/program-ids.json) and the field's own
 * libraries; the simulator declares its own copy (apps/simulator/src/spl/well-known.ts), checked
 * the same way, so neither can vouch for the other.
 */

export const HADRON_PROGRAM_V1 = 'Q72w4coozA552keKDdeeh2EyQw32qfMFsHPu6cbatom';
export const HADRON_PROGRAM_V2 = 'HADRoNbLovyqhCsocfYQYB7QdfCAAinN9HTePvBCVDQ8';

export const SPL_TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** Metaplex Token Metadata: name/symbol of SPL Token mints (and of Token-2022 mints without their own). */
export const METAPLEX_TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
/** The all-zero public key: an unset key field — and the System Program's id. */
export const ZERO_PUBKEY = '11111111111111111111111111111111';
export const SYSTEM_PROGRAM = ZERO_PUBKEY;

export const SYSVAR_CLOCK = 'SysvarC1ock11111111111111111111111111111111';
export const SYSVAR_INSTRUCTIONS = 'Sysvar1nstructions1111111111111111111111111';
export const SYSVAR_RENT = 'SysvarRent111111111111111111111111111111111';

/** Seed of the Metaplex metadata PDA: `["metadata", program id, mint]` under the metadata program. */
export const METAPLEX_METADATA_SEED = 'metadata';

/** The programs above under the names of the team's list (test/fixtures/solana/program-ids.json). */
export const WELL_KNOWN_PROGRAMS = {
  system: SYSTEM_PROGRAM,
  spl_token: SPL_TOKEN_PROGRAM,
  spl_token_2022: TOKEN_2022_PROGRAM,
  associated_token_account: ASSOCIATED_TOKEN_PROGRAM,
  metaplex_token_metadata: METAPLEX_TOKEN_METADATA_PROGRAM,
  hadron_v1: HADRON_PROGRAM_V1,
  hadron_v2: HADRON_PROGRAM_V2,
} as const;

export type HadronProgramVersion = 'v1' | 'v2';

/** Both deployments share instruction tags; the version tells account sizes apart. */
export function programVersionOf(programId: string): HadronProgramVersion | null {
  if (programId === HADRON_PROGRAM_V1) return 'v1';
  if (programId === HADRON_PROGRAM_V2) return 'v2';
  return null;
}

export function isTokenProgram(programId: string): boolean {
  return programId === SPL_TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM;
}
