import { ASSOCIATED_TOKEN_PROGRAM_ID, NATIVE_MINT, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { MPL_TOKEN_METADATA_PROGRAM_ID } from '@metaplex-foundation/mpl-token-metadata';
import { PublicKey, SystemProgram, SYSVAR_CLOCK_PUBKEY, SYSVAR_INSTRUCTIONS_PUBKEY, SYSVAR_RENT_PUBKEY } from '@solana/web3.js';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { BASE58_KEY_LITERAL, sourceFiles } from '@hadron/platform/testing/source-files';
import {
  ASSOCIATED_TOKEN_PROGRAM,
  METAPLEX_METADATA_SEED,
  METAPLEX_TOKEN_METADATA_PROGRAM,
  SPL_TOKEN_PROGRAM,
  SYSTEM_PROGRAM,
  SYSVAR_CLOCK,
  SYSVAR_INSTRUCTIONS,
  SYSVAR_RENT,
  TOKEN_2022_PROGRAM,
  WELL_KNOWN_PROGRAMS,
} from '@hadron/domain';
import fixture from '../../../test/fixtures/solana/program-ids.json';
import { metaplexMetadataAddress } from './discovery/token-metadata';

/**
 * The indexer's well-known addresses against sources that share none of its beliefs: the team's
 * sourced list (test/fixtures/solana/program-ids.json, pinned to ../shared by fixture-copies.spec)
 * and the field's own libraries. A wrong Metaplex program id once passed 815 tests because the
 * simulator carried the same wrong value; this file fails on any such drift.
 */

const ROOT = resolve(__dirname, '../../..');
const programs = fixture.programs as Record<string, { id: string; source: string }>;
/** Where the project declares well-known addresses: one module per side. */
const DECLARATIONS = ['libs/domain/src/hadron/program-ids.ts', 'apps/simulator/src/spl/well-known.ts'];

describe('well-known addresses (indexer side: libs/domain/src/hadron/program-ids.ts)', () => {
  it.each(Object.entries(WELL_KNOWN_PROGRAMS))('%s equals the sourced list', (name, id) => {
    expect(programs[name]?.id).toBe(id);
  });

  it('equal the field libraries’ own constants', () => {
    expect({
      SYSTEM_PROGRAM,
      SPL_TOKEN_PROGRAM,
      TOKEN_2022_PROGRAM,
      ASSOCIATED_TOKEN_PROGRAM,
      METAPLEX_TOKEN_METADATA_PROGRAM,
      SYSVAR_CLOCK,
      SYSVAR_INSTRUCTIONS,
      SYSVAR_RENT,
    }).toEqual({
      SYSTEM_PROGRAM: SystemProgram.programId.toBase58(),
      SPL_TOKEN_PROGRAM: TOKEN_PROGRAM_ID.toBase58(),
      TOKEN_2022_PROGRAM: TOKEN_2022_PROGRAM_ID.toBase58(),
      ASSOCIATED_TOKEN_PROGRAM: ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
      METAPLEX_TOKEN_METADATA_PROGRAM: MPL_TOKEN_METADATA_PROGRAM_ID,
      SYSVAR_CLOCK: SYSVAR_CLOCK_PUBKEY.toBase58(),
      SYSVAR_INSTRUCTIONS: SYSVAR_INSTRUCTIONS_PUBKEY.toBase58(),
      SYSVAR_RENT: SYSVAR_RENT_PUBKEY.toBase58(),
    });
  });

  it('the Metaplex metadata PDA: the listed seeds, derived as web3.js derives it', () => {
    expect(fixture.metaplex_metadata_pda.seeds[0]).toBe(`utf8 '${METAPLEX_METADATA_SEED}'`);
    const program = new PublicKey(programs.metaplex_token_metadata.id);
    for (const mint of [NATIVE_MINT, new PublicKey(programs.hadron_v1.id), PublicKey.unique(), PublicKey.unique()]) {
      const [pda] = PublicKey.findProgramAddressSync([Buffer.from('metadata'), program.toBuffer(), mint.toBuffer()], program);
      expect(metaplexMetadataAddress(mint.toBase58())).toBe(pda.toBase58());
    }
  });
});

const isTest = (file: string) => /\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || file.includes('/testing/') || file.includes('/test-support/');
/** Independently sourced addresses: the list's programs, and the sysvars and native mint as web3.js / spl-token name them. */
const KNOWN = [
  ...Object.entries(programs).map(([name, p]) => ({ name, id: p.id })),
  { name: 'sysvar clock', id: SYSVAR_CLOCK_PUBKEY.toBase58() },
  { name: 'sysvar instructions', id: SYSVAR_INSTRUCTIONS_PUBKEY.toBase58() },
  { name: 'sysvar rent', id: SYSVAR_RENT_PUBKEY.toBase58() },
  { name: 'native mint', id: NATIVE_MINT.toBase58() },
];

describe('well-known addresses in the source tree', () => {
  const literals = ['apps', 'libs'].flatMap((top) =>
    sourceFiles(join(ROOT, top)).flatMap((path) => {
      const file = relative(ROOT, path);
      return [...readFileSync(path, 'utf8').matchAll(BASE58_KEY_LITERAL)].map((m) => ({ file, value: m[1] }));
    }),
  );

  it('scans the tree (the scan itself works)', () => {
    expect(literals.length).toBeGreaterThan(50);
    expect(literals.some((l) => l.file === DECLARATIONS[0] && l.value === METAPLEX_TOKEN_METADATA_PROGRAM)).toBe(true);
  });

  it('no literal is a near miss of a well-known address (a typo or a wrong id that looks right)', () => {
    const near = literals.flatMap(({ file, value }) =>
      KNOWN.filter(
        (k) =>
          value !== k.id &&
          (value.slice(0, 10) === k.id.slice(0, 10) || (value.length === k.id.length && [...value].filter((c, i) => c !== k.id[i]).length <= 3)),
      ).map((k) => `${file}: '${value}' looks like ${k.name} '${k.id}'`),
    );
    expect(near).toEqual([]);
  });

  it('a listed program id is declared once per side: outside tests, only in the declaration modules', () => {
    const ids = new Map(Object.entries(programs).map(([name, p]) => [p.id, name]));
    const elsewhere = literals
      .filter(({ file, value }) => ids.has(value) && !DECLARATIONS.includes(file) && !isTest(file))
      .map(({ file, value }) => `${file}: ${ids.get(value)} '${value}'`);
    expect(elsewhere).toEqual([]);
  });
});
