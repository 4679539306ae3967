import {
  ExtensionType,
  getExtensionData,
  getMetadataPointerState,
  MetadataPointerLayout,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackMint,
  type Mint,
} from '@solana/spl-token';
import { TOKEN_METADATA_DISCRIMINATOR, unpack as unpackTokenMetadata } from '@solana/spl-token-metadata';
import { PublicKey } from '@solana/web3.js';
import { METAPLEX_TOKEN_METADATA_PROGRAM, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from '@hadron/domain';
import { cleanText, decodeMetaplexMetadata, MAX_NAME, MAX_SYMBOL, type OnChainMetadata } from '../discovery/token-metadata';
import type { AccountData } from './solana-rpc';

/**
 * Mint and token-metadata accounts read with the field's own libraries: @solana/spl-token for
 * mints and their Token-2022 extensions (MetadataPointer, TokenMetadata), @solana/spl-token-metadata
 * for the TokenMetadata interface state. Hostile or odd bytes never throw: a mint that does not
 * read is a reason (the pool is held until it reads), metadata that does not read is null (the
 * token shows the fallback).
 */

export interface MintInfo {
  decimals: number;
  tokenProgram: string;
  /** Token-2022: the TokenMetadata extension inside the mint, when it describes this mint. */
  inMint: OnChainMetadata | null;
  /** Token-2022: the account the MetadataPointer names, when set (may be the mint itself). */
  pointer: string | null;
}

export type MintRead = { ok: true; mint: MintInfo } | { ok: false; why: string };

export function readMintAccount(mint: string, account: AccountData | null | undefined): MintRead {
  const read = unpackTokenMint(mint, account);
  if (!read.ok) return read;
  const { parsed, token2022 } = read;
  return {
    ok: true,
    mint: {
      decimals: parsed.decimals,
      tokenProgram: account!.owner,
      inMint: token2022 ? inMintMetadata(parsed, mint) : null,
      pointer: token2022 ? pointerOf(parsed) : null,
    },
  };
}

/**
 * The account as a mint, with spl-token's unpackMint, and what unpackMint lets through refused:
 * a byte the token programs only ever write as 0 or 1 (is_initialized, the two COption tags) that
 * holds anything else is not a mint a program wrote — and decimals go into events for good.
 */
function unpackTokenMint(
  address: string,
  account: AccountData | null | undefined,
): { ok: true; parsed: Mint; token2022: boolean } | { ok: false; why: string } {
  if (!account) return { ok: false, why: `mint ${address}: not returned by the RPC` };
  const program = account.owner === SPL_TOKEN_PROGRAM ? TOKEN_PROGRAM_ID : account.owner === TOKEN_2022_PROGRAM ? TOKEN_2022_PROGRAM_ID : null;
  if (program === null) return { ok: false, why: `mint ${address}: owned by ${account.owner}, not a token program` };
  // A legacy SPL Token mint is exactly MINT_SIZE bytes; only Token-2022 mints carry extensions.
  if (program === TOKEN_PROGRAM_ID && account.data.length !== MINT_SIZE)
    return { ok: false, why: `mint ${address}: ${account.data.length} bytes is not an SPL Token mint` };
  let parsed: Mint;
  try {
    parsed = unpackMint(new PublicKey(address), { data: asBuffer(account.data), owner: program, lamports: account.lamports, executable: false }, program);
  } catch (e) {
    return { ok: false, why: `mint ${address}: not a mint account (${(e as Error).name})` };
  }
  const d = account.data;
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  if (d[IS_INITIALIZED_AT] > 1 || view.getUint32(0, true) > 1 || view.getUint32(FREEZE_AUTHORITY_OPTION_AT, true) > 1)
    return { ok: false, why: `mint ${address}: not a mint account (flags no token program writes)` };
  if (!parsed.isInitialized) return { ok: false, why: `mint ${address}: not initialized` };
  return { ok: true, parsed, token2022: program === TOKEN_2022_PROGRAM_ID };
}

/** Offsets in the 82-byte mint base (MintLayout): is_initialized u8, freeze_authority's COption u32 tag. */
const IS_INITIALIZED_AT = 45;
const FREEZE_AUTHORITY_OPTION_AT = 46;

/**
 * Name and symbol for `mint` from the account a MetadataPointer names: a Metaplex metadata
 * account, a Token-2022 mint carrying the TokenMetadata extension, or an account holding the
 * TokenMetadata interface state (8-byte discriminator, u32 length, value). Null when it is none
 * of these, or describes another mint.
 */
export function readMetadataAccount(mint: string, address: string, account: AccountData | null | undefined): OnChainMetadata | null {
  if (!account) return null;
  if (account.owner === METAPLEX_TOKEN_METADATA_PROGRAM) return decodeMetaplexMetadata(account.data, mint);
  if (account.owner === TOKEN_2022_PROGRAM) {
    const other = unpackTokenMint(address, account);
    return other.ok && other.token2022 ? inMintMetadata(other.parsed, mint) : null;
  }
  const data = account.data;
  const header = TOKEN_METADATA_DISCRIMINATOR.length + 4;
  if (data.length < header || !TOKEN_METADATA_DISCRIMINATOR.every((b, i) => data[i] === b)) return null;
  const length = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(TOKEN_METADATA_DISCRIMINATOR.length, true);
  if (header + length > data.length) return null;
  return tokenMetadataValue(data.subarray(header, header + length), mint);
}

function pointerOf(parsed: Mint): string | null {
  // A cut entry: MetadataPointerLayout.decode does not check the length (web3.js takes a short key).
  if (getExtensionData(ExtensionType.MetadataPointer, parsed.tlvData)?.length !== MetadataPointerLayout.span) return null;
  try {
    const state = getMetadataPointerState(parsed);
    return state?.metadataAddress ? state.metadataAddress.toBase58() : null;
  } catch {
    return null; // a truncated extension
  }
}

function inMintMetadata(parsed: Mint, mint: string): OnChainMetadata | null {
  let value: Buffer | null;
  try {
    value = getExtensionData(ExtensionType.TokenMetadata, parsed.tlvData);
  } catch {
    return null;
  }
  return value ? tokenMetadataValue(value, mint) : null;
}

/** A TokenMetadata value (spl-token-metadata's pack format) that describes `mint`, as display text. */
function tokenMetadataValue(bytes: Uint8Array, mint: string): OnChainMetadata | null {
  try {
    const meta = unpackTokenMetadata(bytes);
    if (meta.mint.toBase58() !== mint) return null;
    return { mint, name: cleanText(meta.name, MAX_NAME), symbol: cleanText(meta.symbol, MAX_SYMBOL) };
  } catch {
    return null; // truncated or not a TokenMetadata
  }
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
