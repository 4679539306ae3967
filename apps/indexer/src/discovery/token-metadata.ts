import type { TokenMetadata } from '@hadron/contracts';
import { encodeBase58, findProgramAddress, utf8Seed } from '@hadron/domain';
import type { TokenList } from '../tokens/token-list';

/** Token metadata: decimals from the mint, name/symbol from Metaplex, icon (and curated names) from the token list. */

export const METAPLEX_TOKEN_METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzJb6Haq2Tdz2Cx';

/** Metaplex metadata PDA of a mint: `["metadata", program, mint]` under the metadata program. */
export function metaplexMetadataAddress(mint: string): string {
  return findProgramAddress([utf8Seed('metadata'), { pubkey: METAPLEX_TOKEN_METADATA_PROGRAM }, { pubkey: mint }], METAPLEX_TOKEN_METADATA_PROGRAM).address;
}

export interface MetaplexFields {
  mint: string;
  name: string;
  symbol: string;
}

const MAX_FIELD = 1024;

/**
 * Name and symbol of a Metaplex Metadata account (borsh): key u8, update_authority, mint, then
 * name, symbol, uri as u32-length strings (NUL-padded on chain; the padding is trimmed). Null when
 * the bytes are not a metadata account.
 */
export function decodeMetaplexMetadata(data: Uint8Array): MetaplexFields | null {
  if (data.length < 65 + 8) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 65;
  const text = (): string | null => {
    if (at + 4 > data.length) return null;
    const len = view.getUint32(at, true);
    if (len > MAX_FIELD || at + 4 + len > data.length) return null;
    const value = new TextDecoder().decode(data.subarray(at + 4, at + 4 + len)).replace(/\0+$/, '').trim();
    at += 4 + len;
    return value;
  };
  const name = text();
  const symbol = text();
  if (name === null || symbol === null) return null;
  return { mint: encodeBase58(data.subarray(33, 65)), name, symbol };
}

/** SPL mint (and Token-2022 mint base): decimals at byte 44. */
export function mintDecimals(data: Uint8Array): number | null {
  return data.length >= 45 ? data[44] : null;
}

const clip = (s: string, max: number) => (s.length > max ? s.slice(0, max) : s);

/** A curated token-list entry wins (operator intent), then Metaplex, else empty strings. */
export function tokenMetadataOf(mint: string, decimals: number, metaplex: MetaplexFields | null, list: TokenList): TokenMetadata {
  const listed = list.get(mint);
  const fromChain = metaplex && metaplex.mint === mint ? metaplex : null;
  return {
    mint,
    symbol: clip(listed?.symbol ?? fromChain?.symbol ?? '', 64),
    name: clip(listed?.name ?? fromChain?.name ?? '', 128),
    decimals,
    icon: clip(listed?.icon ?? '', 2048),
  };
}
