import type { HadronProgramVersion } from '@hadron/domain';
import type { KeyBook } from '../ledger/keys';
import { NATIVE_MINT, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM, USDC_MINT } from '../spl/well-known';

/**
 * What a simulated market is made of: tokens (real quote mints, synthetic bases with varied
 * decimals, covering every way the chain keeps — or does not keep — a token's name) and a
 * rotation of pool templates covering every case the indexer must handle.
 */

/**
 * Where a token's name and symbol live on chain:
 * - `metaplex`: the Metaplex metadata PDA, strings exactly as long as they are;
 * - `metaplex-puffed`: the same, strings NUL-padded to 32 / 10 / 200 bytes (most mainnet tokens);
 * - `token-2022`: a Token-2022 mint whose MetadataPointer names the mint itself, with the
 *   TokenMetadata extension inside the mint;
 * - `pointer`: a Token-2022 mint whose MetadataPointer names another account, holding the
 *   token-metadata interface state (owned by a token-metadata program);
 * - `none`: nowhere (no metadata account, no extension): the chain has no name for it.
 */
export type MetadataKind = 'metaplex' | 'metaplex-puffed' | 'token-2022' | 'pointer' | 'none';

export interface TokenTemplate {
  /** Key label (synthetic mints are derived from it); the chain's symbol unless `metadata` is 'none'. */
  symbol: string;
  name: string;
  decimals: number;
  mint?: string;
  tokenProgram: string;
  metadata: MetadataKind;
  /** Human quote-per-base price to start from (bases only). */
  price?: number;
}

/** The mint of a token template: its real mint, or one derived from its label in the cluster's KeyBook. */
export function templateMint(template: TokenTemplate, keys: Pick<KeyBook, 'key'>): string {
  return template.mint ?? keys.key(`mint/${template.symbol}`);
}

export const QUOTES = {
  USDC: { symbol: 'USDC', name: 'USD Coin', decimals: 6, mint: USDC_MINT, tokenProgram: SPL_TOKEN_PROGRAM, metadata: 'metaplex-puffed' },
  SOL: { symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, mint: NATIVE_MINT, tokenProgram: SPL_TOKEN_PROGRAM, metadata: 'metaplex-puffed' },
} as const satisfies Record<string, TokenTemplate>;

export type QuoteName = keyof typeof QUOTES;

/** USD per quote unit, to size vaults and trades in comparable value whatever the quote. */
export const QUOTE_USD: Record<QuoteName, number> = { USDC: 1, SOL: 150.4 };

/** Activity relative to the configured busy-pool rates. */
export type Activity = 'busy' | 'medium' | 'quiet';

export type FeeSetup =
  /** The program's global fee config (default recipient, no split). */
  | 'global'
  /** has_pool_fee = 1 and a per-pool v2 fee config whose split changes during history. */
  | 'pool-split'
  /** has_pool_fee = 1 and a per-pool v1 (72-byte) fee config charging 0 ppm: no fee transfer. */
  | 'pool-zero';

export interface PoolTemplate {
  program: HadronProgramVersion;
  base: TokenTemplate;
  quote: QuoteName;
  activity: Activity;
  fee: FeeSetup;
  spreadConfig: boolean;
}

const SOL_BASE: TokenTemplate = { ...QUOTES.SOL, price: 150.4 };

const BASES: Record<string, TokenTemplate> = {
  BONQ: { symbol: 'BONQ', name: 'Bonq Inu', decimals: 5, tokenProgram: SPL_TOKEN_PROGRAM, metadata: 'metaplex', price: 0.0000231 },
  HDRN: { symbol: 'HDRN', name: 'Hadron Test Token', decimals: 9, tokenProgram: SPL_TOKEN_PROGRAM, metadata: 'metaplex-puffed', price: 0.0421 },
  WBTX: { symbol: 'WBTX', name: 'Wrapped BTX (Portal)', decimals: 8, tokenProgram: TOKEN_2022_PROGRAM, metadata: 'pointer', price: 64250.5 },
  ANON: { symbol: 'ANON', name: '', decimals: 6, tokenProgram: SPL_TOKEN_PROGRAM, metadata: 'none', price: 0.83 },
  TTWO: { symbol: 'TTWO', name: 'Token Twenty Two', decimals: 9, tokenProgram: TOKEN_2022_PROGRAM, metadata: 'token-2022', price: 2.51 },
  ZERO: { symbol: 'ZERO', name: 'Whole Units Only', decimals: 0, tokenProgram: SPL_TOKEN_PROGRAM, metadata: 'metaplex-puffed', price: 12 },
};

/** The first pools are the ones every test relies on; further pools repeat the rotation with new seeds. */
export const POOL_ROTATION: readonly PoolTemplate[] = [
  { program: 'v1', base: SOL_BASE, quote: 'USDC', activity: 'busy', fee: 'global', spreadConfig: true },
  { program: 'v2', base: SOL_BASE, quote: 'USDC', activity: 'busy', fee: 'pool-split', spreadConfig: false },
  { program: 'v1', base: BASES.BONQ, quote: 'USDC', activity: 'medium', fee: 'global', spreadConfig: false },
  { program: 'v2', base: BASES.HDRN, quote: 'SOL', activity: 'medium', fee: 'pool-split', spreadConfig: true },
  { program: 'v2', base: BASES.WBTX, quote: 'USDC', activity: 'quiet', fee: 'global', spreadConfig: false },
  { program: 'v1', base: BASES.ANON, quote: 'SOL', activity: 'medium', fee: 'pool-zero', spreadConfig: false },
  { program: 'v2', base: BASES.TTWO, quote: 'USDC', activity: 'medium', fee: 'global', spreadConfig: false },
  { program: 'v1', base: BASES.ZERO, quote: 'USDC', activity: 'quiet', fee: 'global', spreadConfig: false },
];

export const ACTIVITY_FACTOR: Record<Activity, number> = { busy: 1, medium: 0.25, quiet: 0.06 };

/** Lifecycle events, as fractions of the history, applied to pools 2, 3 and 4 (mod the pool count). */
export const LIFECYCLE = [
  { pool: 2, state: 2, at: 0.35, until: 0.55 }, // Paused, then Initialized again
  { pool: 3, state: 3, at: 0.6, until: 0.75 }, // RejectSwaps, then Initialized again
  { pool: 4, state: 4, at: 0.9, until: null }, // Closed (after withdrawing everything)
] as const;

/** When the per-pool fee splits change, as fractions of the history. */
export const SPLIT_CHANGES_AT = [0.3, 0.7] as const;

/**
 * Tokens renamed on chain (their metadata rewritten by the update authority), as fractions of the
 * schedule span: with `scheduleSeconds` past the history, the rename lands in live slots, where a
 * client can see the name change. Only Metaplex tokens are renamed (an UpdateMetadataAccountV2).
 */
export const TOKEN_RENAMES = [{ token: 'HDRN', at: 0.5, symbol: 'HDRN2', name: 'Hadron Token' }] as const;

/** Real fee recipients and fee rates of the global fee configs (DESIGN §2; fixtures use 10 ppm). */
export const GLOBAL_FEE = {
  v1: { recipient: '7fwqJJhGazsXcMhcwzAjtc2KsKNpbktsxDFbGN3RzYuQ', ppm: 10 },
  v2: { recipient: '7Ly5vZTDz2ZJGrqTa9gCP2NWjFDvnxSLVQEdmvMcVaVn', ppm: 10 },
} as const;
