import { decodePubkey, encodeBase58, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from '@hadron/domain';

/**
 * SPL Token / Token-2022 / Metaplex / address-lookup-table account bytes, as the real programs lay
 * them out. These are not Hadron layouts (those live in @hadron/domain); the simulator needs them
 * to serve a believable cluster.
 */

export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;
/** Token-2022 associated token accounts carry the ImmutableOwner extension: 165 + type byte + TLV header. */
export const TOKEN_2022_ATA_SIZE = 170;
export const TOKEN_ACCOUNT_RENT = 2_039_280;
export const TOKEN_2022_ATA_RENT = 2_074_080;
export const MINT_RENT = 1_461_600;

export const METAPLEX_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzJb6Haq2Tdz2Cx';
export const ADDRESS_LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111';
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';

export interface MintFields {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  freezeAuthority: string | null;
}

export function encodeMint(mint: MintFields): Uint8Array {
  const data = new Uint8Array(MINT_SIZE);
  const view = new DataView(data.buffer);
  writeOptionKey(data, view, 0, mint.mintAuthority);
  view.setBigUint64(36, mint.supply, true);
  data[44] = mint.decimals;
  data[45] = 1; // is_initialized
  writeOptionKey(data, view, 46, mint.freezeAuthority);
  return data;
}

export const mintDecimals = (data: Uint8Array): number => data[44];

export interface TokenAccountFields {
  mint: string;
  owner: string;
  amount: bigint;
  /** Rent-exempt reserve of a native (WSOL) account, else null. */
  nativeReserve: number | null;
  tokenProgram: string;
}

export function tokenAccountSize(tokenProgram: string): number {
  return tokenProgram === TOKEN_2022_PROGRAM ? TOKEN_2022_ATA_SIZE : TOKEN_ACCOUNT_SIZE;
}

export function tokenAccountRent(tokenProgram: string): number {
  return tokenProgram === TOKEN_2022_PROGRAM ? TOKEN_2022_ATA_RENT : TOKEN_ACCOUNT_RENT;
}

export function encodeTokenAccount(account: TokenAccountFields): Uint8Array {
  const data = new Uint8Array(tokenAccountSize(account.tokenProgram));
  const view = new DataView(data.buffer);
  data.set(decodePubkey(account.mint), 0);
  data.set(decodePubkey(account.owner), 32);
  view.setBigUint64(64, account.amount, true);
  // delegate: None (4 zero bytes + 32) @72
  data[108] = 1; // AccountState::Initialized
  if (account.nativeReserve !== null) {
    view.setUint32(109, 1, true);
    view.setBigUint64(113, BigInt(account.nativeReserve), true);
  }
  // delegated_amount @121 = 0, close_authority None @129
  if (account.tokenProgram === TOKEN_2022_PROGRAM) {
    data[165] = 2; // AccountType::Account
    view.setUint16(166, 7, true); // ExtensionType::ImmutableOwner, zero-length value
    view.setUint16(168, 0, true);
  }
  return data;
}

export const tokenAccountMint = (data: Uint8Array): string => encodeBase58(data.subarray(0, 32));
export const tokenAccountOwner = (data: Uint8Array): string => encodeBase58(data.subarray(32, 64));
export const tokenAccountAmount = (data: Uint8Array): bigint => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true);

/** A copy of `data` with a new amount. */
export function withTokenAmount(data: Uint8Array, amount: bigint): Uint8Array {
  if (amount < 0n) throw new RangeError('negative token amount');
  const copy = data.slice();
  new DataView(copy.buffer).setBigUint64(64, amount, true);
  return copy;
}

export function isTokenProgramId(id: string): boolean {
  return id === SPL_TOKEN_PROGRAM || id === TOKEN_2022_PROGRAM;
}

export interface MetadataFields {
  updateAuthority: string;
  mint: string;
  name: string;
  symbol: string;
  uri: string;
}

const NAME_LEN = 32;
const SYMBOL_LEN = 10;
const URI_LEN = 200;
/** Size of a Metaplex Metadata v1 account as created by CreateMetadataAccountV3. */
export const METADATA_SIZE = 679;

/**
 * Metaplex token metadata (borsh): key u8 (4 = MetadataV1), update_authority, mint, then name,
 * symbol and uri as u32-length strings padded with NULs to 32 / 10 / 200 bytes, then
 * seller_fee_basis_points u16, creators Option (None), primary_sale_happened, is_mutable,
 * edition_nonce Option, token_standard Option, collection Option, uses Option, … zero-padded.
 */
export function encodeMetadata(meta: MetadataFields): Uint8Array {
  const data = new Uint8Array(METADATA_SIZE);
  const view = new DataView(data.buffer);
  data[0] = 4;
  data.set(decodePubkey(meta.updateAuthority), 1);
  data.set(decodePubkey(meta.mint), 33);
  let at = 65;
  for (const [text, len] of [
    [meta.name, NAME_LEN],
    [meta.symbol, SYMBOL_LEN],
    [meta.uri, URI_LEN],
  ] as const) {
    const bytes = new TextEncoder().encode(text);
    if (bytes.length > len) throw new RangeError(`metadata field longer than ${len} bytes: ${text}`);
    view.setUint32(at, len, true);
    data.set(bytes, at + 4);
    at += 4 + len;
  }
  view.setUint16(at, 0, true); // seller_fee_basis_points
  at += 2;
  data[at++] = 0; // creators: None
  data[at++] = 0; // primary_sale_happened
  data[at++] = 1; // is_mutable
  data[at++] = 1; // edition_nonce: Some(
  data[at++] = 255; //   255)
  data[at++] = 1; // token_standard: Some(
  data[at++] = 2; //   Fungible)
  return data;
}

/** Name, symbol and uri of a Metaplex metadata account (NUL padding trimmed). */
export function decodeMetadata(data: Uint8Array): { mint: string; name: string; symbol: string; uri: string } {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 65;
  const text = () => {
    const len = view.getUint32(at, true);
    const value = new TextDecoder().decode(data.subarray(at + 4, at + 4 + len)).replace(/\0+$/, '');
    at += 4 + len;
    return value;
  };
  const mint = encodeBase58(data.subarray(33, 65));
  return { mint, name: text(), symbol: text(), uri: text() };
}

/**
 * An address lookup table: u32 type (1 = LookupTable), deactivation_slot u64 (u64::MAX = active),
 * last_extended_slot u64, last_extended_slot_start_index u8, authority Option<Pubkey>, u16 padding,
 * then the addresses from byte 56.
 */
export function encodeLookupTable(table: { authority: string | null; lastExtendedSlot: number; addresses: readonly string[] }): Uint8Array {
  const data = new Uint8Array(56 + 32 * table.addresses.length);
  const view = new DataView(data.buffer);
  view.setUint32(0, 1, true);
  view.setBigUint64(4, (1n << 64n) - 1n, true);
  view.setBigUint64(12, BigInt(table.lastExtendedSlot), true);
  data[20] = 0;
  if (table.authority !== null) {
    data[21] = 1;
    data.set(decodePubkey(table.authority), 22);
  }
  table.addresses.forEach((a, i) => data.set(decodePubkey(a), 56 + 32 * i));
  return data;
}

/** Rent-exempt minimum for `size` bytes (the real formula: (128 + size) × 3480 × 2). */
export function rentExempt(size: number): number {
  return (128 + size) * 6960;
}

function writeOptionKey(data: Uint8Array, view: DataView, at: number, key: string | null): void {
  if (key === null) return;
  view.setUint32(at, 1, true);
  data.set(decodePubkey(key), at + 4);
}
