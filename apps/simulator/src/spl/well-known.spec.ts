import { MPL_TOKEN_METADATA_PROGRAM_ID } from '@metaplex-foundation/mpl-token-metadata';
import { ASSOCIATED_TOKEN_PROGRAM_ID, NATIVE_MINT as SPL_NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import {
  AddressLookupTableProgram,
  BPF_LOADER_PROGRAM_ID,
  ComputeBudgetProgram,
  PublicKey,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_INSTRUCTIONS_PUBKEY,
  SYSVAR_RENT_PUBKEY,
} from '@solana/web3.js';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BASE58_KEY_LITERAL, sourceFiles } from '@hadron/platform/testing/source-files';
import fixture from '../../../../test/fixtures/solana/program-ids.json';
import {
  ADDRESS_LOOKUP_TABLE_PROGRAM,
  ASSOCIATED_TOKEN_PROGRAM,
  BPF_LOADER_2,
  COMPUTE_BUDGET_PROGRAM,
  METAPLEX_PROGRAM,
  NATIVE_MINT,
  SIM_LOADERS,
  SIM_PROGRAM_IDS,
  SIM_SYSVARS,
  SPL_TOKEN_PROGRAM,
  SYSTEM_PROGRAM,
  SYSVAR_CLOCK,
  SYSVAR_INSTRUCTIONS,
  SYSVAR_RENT,
  TOKEN_2022_PROGRAM,
  USDC_MINT,
  ZERO_PUBKEY,
} from './well-known';

/**
 * The simulator's well-known addresses against the field's own libraries (web3.js, spl-token,
 * mpl-token-metadata) — never against @hadron/domain, whose beliefs the simulator must not share.
 * and the team's sourced list (test/fixtures/solana/program-ids.json, pinned to ../shared).
 */

describe('well-known addresses (simulator side: spl/well-known.ts)', () => {
  it('equal the field libraries’ own constants', () => {
    expect({
      SYSTEM_PROGRAM,
      SPL_TOKEN_PROGRAM,
      TOKEN_2022_PROGRAM,
      ASSOCIATED_TOKEN_PROGRAM,
      METAPLEX_PROGRAM,
      COMPUTE_BUDGET_PROGRAM,
      ADDRESS_LOOKUP_TABLE_PROGRAM,
      BPF_LOADER_2,
      SYSVAR_CLOCK,
      SYSVAR_INSTRUCTIONS,
      SYSVAR_RENT,
      NATIVE_MINT,
    }).toEqual({
      SYSTEM_PROGRAM: SystemProgram.programId.toBase58(),
      SPL_TOKEN_PROGRAM: TOKEN_PROGRAM_ID.toBase58(),
      TOKEN_2022_PROGRAM: TOKEN_2022_PROGRAM_ID.toBase58(),
      ASSOCIATED_TOKEN_PROGRAM: ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
      METAPLEX_PROGRAM: MPL_TOKEN_METADATA_PROGRAM_ID.toString(),
      COMPUTE_BUDGET_PROGRAM: ComputeBudgetProgram.programId.toBase58(),
      ADDRESS_LOOKUP_TABLE_PROGRAM: AddressLookupTableProgram.programId.toBase58(),
      BPF_LOADER_2: BPF_LOADER_PROGRAM_ID.toBase58(),
      SYSVAR_CLOCK: SYSVAR_CLOCK_PUBKEY.toBase58(),
      SYSVAR_INSTRUCTIONS: SYSVAR_INSTRUCTIONS_PUBKEY.toBase58(),
      SYSVAR_RENT: SYSVAR_RENT_PUBKEY.toBase58(),
      NATIVE_MINT: SPL_NATIVE_MINT.toBase58(),
    });
    expect(ZERO_PUBKEY).toBe(new PublicKey(new Uint8Array(32)).toBase58());
  });

  it.each(Object.entries(SIM_PROGRAM_IDS))('%s equals the sourced list', (name, id) => {
    expect((fixture.programs as Record<string, { id: string }>)[name]?.id).toBe(id);
  });

  it('SIM_PROGRAM_IDS is keyed like the sourced list, every value a distinct 32-byte key', () => {
    expect(Object.keys(SIM_PROGRAM_IDS).sort()).toEqual(Object.keys(fixture.programs).sort());
    expect(Object.keys(SIM_PROGRAM_IDS)).toEqual([
      'system',
      'spl_token',
      'spl_token_2022',
      'associated_token_account',
      'metaplex_token_metadata',
      'compute_budget',
      'address_lookup_table',
      'memo_v2',
      'hadron_v1',
      'hadron_v2',
    ]);
    const all = [...Object.values(SIM_PROGRAM_IDS), ...Object.values(SIM_SYSVARS), ...Object.values(SIM_LOADERS), NATIVE_MINT, USDC_MINT];
    for (const id of all) expect(new PublicKey(id).toBytes()).toHaveLength(32);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('apps/simulator names well-known addresses only through spl/well-known.ts', () => {
  const root = join(__dirname, '..');
  const files = sourceFiles(root).map((path) => ({ file: relative(root, path), text: readFileSync(path, 'utf8') }));
  const declared = new Set<string>([...Object.values(SIM_PROGRAM_IDS), ...Object.values(SIM_SYSVARS), ...Object.values(SIM_LOADERS), NATIVE_MINT, USDC_MINT]);

  it('no other file writes one as a literal (tests included)', () => {
    expect(files.length).toBeGreaterThan(20);
    const found = files
      .filter((f) => f.file !== 'spl/well-known.ts')
      .flatMap((f) => [...f.text.matchAll(BASE58_KEY_LITERAL)].filter((m) => declared.has(m[1])).map((m) => `${f.file}: ${m[1]}`));
    expect(found).toEqual([]);
  });

  it('no file takes a well-known address (or the indexer’s ATA / metadata derivations) from @hadron/domain', () => {
    const names =
      /\b(SPL_TOKEN_PROGRAM|TOKEN_2022_PROGRAM|ASSOCIATED_TOKEN_PROGRAM|SYSTEM_PROGRAM|SYSVAR_\w+|HADRON_PROGRAM_V[12]|ZERO_PUBKEY|METAPLEX_\w+|WELL_KNOWN_PROGRAMS|isTokenProgram|associatedTokenAddress|findProgramAddress|utf8Seed)\b/;
    const imports = /import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@hadron\/domain'/g;
    const found = files.flatMap((f) =>
      [...f.text.matchAll(imports)].flatMap((m) =>
        m[1]
          .split(',')
          .map((n) => n.trim())
          .filter((n) => names.test(n))
          .map((n) => `${f.file}: ${n}`),
      ),
    );
    expect(found).toEqual([]);
  });
});
