/**
 * Every well-known Solana address the simulator names, declared once — and on its own: nothing
 * here comes from @hadron/domain (the indexer's side). A wrong Metaplex program id once lived in
 * both the indexer and the simulator, so every test passed while on chain every token came out
 * nameless; a simulator that shares the indexer's beliefs cannot catch them. The values are those
 * of the team's sourced list (test/fixtures/solana/program-ids.json) and of the field's own
 * libraries (web3.js, spl-token, mpl-token-metadata); well-known.spec.ts checks the latter.
 *
 * Any other file of apps/simulator imports these names; none writes a well-known address itself.
 */

/** Programs, keyed exactly as `programs` of program-ids.json. */
export const SIM_PROGRAM_IDS = {
  system: '11111111111111111111111111111111',
  spl_token: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  spl_token_2022: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  associated_token_account: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  metaplex_token_metadata: 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s',
  compute_budget: 'ComputeBudget111111111111111111111111111111',
  address_lookup_table: 'AddressLookupTab1e1111111111111111111111111',
  memo_v2: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  hadron_v1: 'Q72w4coozA552keKDdeeh2EyQw32qfMFsHPu6cbatom',
  hadron_v2: 'HADRoNbLovyqhCsocfYQYB7QdfCAAinN9HTePvBCVDQ8',
} as const;

export const SYSTEM_PROGRAM = SIM_PROGRAM_IDS.system;
export const SPL_TOKEN_PROGRAM = SIM_PROGRAM_IDS.spl_token;
export const TOKEN_2022_PROGRAM = SIM_PROGRAM_IDS.spl_token_2022;
export const ASSOCIATED_TOKEN_PROGRAM = SIM_PROGRAM_IDS.associated_token_account;
/** Metaplex Token Metadata: the name and symbol of most SPL Token mints live in its PDA. */
export const METAPLEX_PROGRAM = SIM_PROGRAM_IDS.metaplex_token_metadata;
export const COMPUTE_BUDGET_PROGRAM = SIM_PROGRAM_IDS.compute_budget;
export const ADDRESS_LOOKUP_TABLE_PROGRAM = SIM_PROGRAM_IDS.address_lookup_table;
export const MEMO_PROGRAM = SIM_PROGRAM_IDS.memo_v2;
export const HADRON_PROGRAM_V1 = SIM_PROGRAM_IDS.hadron_v1;
export const HADRON_PROGRAM_V2 = SIM_PROGRAM_IDS.hadron_v2;

/** The all-zero public key (an unset key field) — which is also the System Program's id. */
export const ZERO_PUBKEY: string = SYSTEM_PROGRAM;

/** Sysvars the simulated transactions name, and the owner of every sysvar account. */
export const SIM_SYSVARS = {
  clock: 'SysvarC1ock11111111111111111111111111111111',
  instructions: 'Sysvar1nstructions1111111111111111111111111',
  rent: 'SysvarRent111111111111111111111111111111111',
  owner: 'Sysvar1111111111111111111111111111111111111',
} as const;

export const SYSVAR_CLOCK = SIM_SYSVARS.clock;
export const SYSVAR_INSTRUCTIONS = SIM_SYSVARS.instructions;
export const SYSVAR_RENT = SIM_SYSVARS.rent;
export const SYSVAR_OWNER = SIM_SYSVARS.owner;

/** Loaders: the owners of program accounts (and of the builtins). */
export const SIM_LOADERS = {
  bpf_upgradeable: 'BPFLoaderUpgradeab1e11111111111111111111111',
  bpf_2: 'BPFLoader2111111111111111111111111111111111',
  native: 'NativeLoader1111111111111111111111111111111',
} as const;

export const BPF_UPGRADEABLE_LOADER = SIM_LOADERS.bpf_upgradeable;
export const BPF_LOADER_2 = SIM_LOADERS.bpf_2;
export const NATIVE_LOADER = SIM_LOADERS.native;

/** Wrapped SOL: the SPL Token mint whose token accounts hold rent + amount as lamports. */
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
/** Circle's USDC on mainnet (SPL Token, 6 decimals): a real quote mint of the simulated market. */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** First seed of the Metaplex metadata PDA: `["metadata", program id, mint]` under the program. */
export const METAPLEX_METADATA_SEED = 'metadata';
