import type { TokenMetadata } from '@hadron/contracts';
import { encodeBase58, findProgramAddress, METAPLEX_METADATA_SEED, METAPLEX_TOKEN_METADATA_PROGRAM, utf8Seed } from '@hadron/domain';
import type { TokenList } from '../tokens/token-list';

/**
 * Token metadata: decimals from the mint; name and symbol from where the chain keeps them (the
 * Token-2022 metadata extension, the account a MetadataPointer names, or the Metaplex PDA — see
 * PoolReader.tokenMetadata); icon (and curated names) from the shipped token list. The byte
 * formats the field's libraries read live in source/token-accounts.ts; this file is pure.
 */

/** Name and symbol an account says a mint has, as display text (see cleanText). */
export interface OnChainMetadata {
  mint: string;
  name: string;
  symbol: string;
}

export const MAX_SYMBOL = 64;
export const MAX_NAME = 128;

/** Metaplex metadata PDA of a mint: `["metadata", program, mint]` under the metadata program. */
export function metaplexMetadataAddress(mint: string): string {
  return findProgramAddress([utf8Seed(METAPLEX_METADATA_SEED), { pubkey: METAPLEX_TOKEN_METADATA_PROGRAM }, { pubkey: mint }], METAPLEX_TOKEN_METADATA_PROGRAM)
    .address;
}

/**
 * Characters that only hide or reorder what a reader sees: NUL (Metaplex pads to 32/10/200 bytes)
 * and the other controls but whitespace, the soft hyphen, zero-width space, LRM/RLM, bidi embeddings,
 * overrides and isolates, word joiner, BOM. Zero-width (non-)joiners stay: emoji sequences and
 * Persian or Indic names need them.
 */
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f-\u0084\u0086-\u009f\u00ad\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

/**
 * On-chain text as a person should see it: padding and invisible characters removed, whitespace
 * collapsed, at most `max` characters (never cutting a character in half). Text that was not valid
 * UTF-8 (a decoder's U+FFFD) is no name at all: '' — the caller falls back.
 */
export function cleanText(text: string, max: number): string {
  if (text.includes('\ufffd')) return '';
  const clean = text.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length > max ? chars.slice(0, max).join('').trimEnd() : clean;
}

/** Metaplex caps name/symbol/uri at 32/10/200 bytes; anything near this is not a metadata account. */
const MAX_BORSH_STRING = 1024;
const METADATA_V1_KEY = 4;
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Name and symbol of a Metaplex Metadata account (borsh: key u8 = 4 MetadataV1, update_authority,
 * mint, then name, symbol, uri as u32-length strings) for `mint`. Null when the bytes are not a
 * MetadataV1 account or describe another mint. A field that is not valid UTF-8 reads as ''.
 * Tests build their accounts with Metaplex's own serializer (mpl-token-metadata), never with ours.
 */
export function decodeMetaplexMetadata(data: Uint8Array, mint: string): OnChainMetadata | null {
  if (data.length < 65 + 8 || data[0] !== METADATA_V1_KEY) return null;
  if (encodeBase58(data.subarray(33, 65)) !== mint) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 65;
  const field = (): string | null => {
    if (at + 4 > data.length) return null;
    const len = view.getUint32(at, true);
    if (len > MAX_BORSH_STRING || at + 4 + len > data.length) return null;
    const bytes = data.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    try {
      return STRICT_UTF8.decode(bytes);
    } catch {
      return '\ufffd'; // not UTF-8: cleanText makes it ''
    }
  };
  const name = field();
  const symbol = field();
  if (name === null || symbol === null) return null;
  return { mint, name: cleanText(name, MAX_NAME), symbol: cleanText(symbol, MAX_SYMBOL) };
}

/**
 * A curated token-list entry wins (operator intent), then the chain. What neither knows stays ''
 * here: events carry what the chain says, and readers show the one fallback (@hadron/domain
 * displaySymbol / displayName: the short mint).
 */
export function tokenMetadataOf(mint: string, decimals: number, onChain: OnChainMetadata | null, list: TokenList): TokenMetadata {
  const listed = list.get(mint);
  const fromChain = onChain && onChain.mint === mint ? onChain : null;
  return {
    mint,
    symbol: listed?.symbol ?? fromChain?.symbol ?? '',
    name: listed?.name ?? fromChain?.name ?? '',
    decimals,
    icon: [...(listed?.icon ?? '')].slice(0, 2048).join(''),
  };
}

/** The fields a TokenMetadataChanged carries: a change in any is a rename. */
export function sameTokenMetadata(a: TokenMetadata, b: TokenMetadata): boolean {
  return a.mint === b.mint && a.symbol === b.symbol && a.name === b.name && a.icon === b.icon;
}
