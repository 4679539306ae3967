/** Program and sysvar addresses the Hadron decoder needs (base58). */

export const HADRON_PROGRAM_V1 = 'Q72w4coozA552keKDdeeh2EyQw32qfMFsHPu6cbatom';
export const HADRON_PROGRAM_V2 = 'HADRoNbLovyqhCsocfYQYB7QdfCAAinN9HTePvBCVDQ8';

export const SPL_TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** The all-zero public key: an unset key field — and the System Program's id. */
export const ZERO_PUBKEY = '11111111111111111111111111111111';
export const SYSTEM_PROGRAM = ZERO_PUBKEY;

export const SYSVAR_CLOCK = 'SysvarC1ock11111111111111111111111111111111';
export const SYSVAR_INSTRUCTIONS = 'Sysvar1nstructions1111111111111111111111111';
export const SYSVAR_RENT = 'SysvarRent111111111111111111111111111111111';

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
