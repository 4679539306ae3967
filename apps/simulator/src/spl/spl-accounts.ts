import { getMetadataAccountDataSerializer, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { none, publicKey as umiPublicKey, some } from '@metaplex-foundation/umi';
import {
  ACCOUNT_SIZE,
  ACCOUNT_TYPE_SIZE,
  AccountLayout,
  AccountState as SplAccountState,
  AccountType,
  ExtensionType,
  getAccountLen,
  getMintLen,
  LENGTH_SIZE,
  METADATA_POINTER_SIZE,
  MetadataPointerLayout,
  MINT_SIZE as SPL_MINT_SIZE,
  MintLayout,
  MULTISIG_SIZE,
  TYPE_SIZE,
} from '@solana/spl-token';
import { pack as packTokenMetadata, TOKEN_METADATA_DISCRIMINATOR } from '@solana/spl-token-metadata';
import { PublicKey } from '@solana/web3.js';
import { decodePubkey, encodeBase58 } from '@hadron/domain';
import { SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from './well-known';

/**
 * SPL Token / Token-2022 / Metaplex / token-metadata-interface / address-lookup-table account
 * bytes, built with the field's own libraries wherever one exists (spl-token's layouts,
 * spl-token-metadata's `pack`, mpl-token-metadata's serializer): the simulator must not share the
 * indexer's beliefs about these formats. Hadron's own layouts live in @hadron/domain.
 */

/** An SPL Token mint: exactly 82 bytes (a Token-2022 mint with extensions is longer). */
export const MINT_SIZE: number = SPL_MINT_SIZE;
export const TOKEN_ACCOUNT_SIZE: number = ACCOUNT_SIZE;
/** Token-2022 associated token accounts carry the ImmutableOwner extension: 165 + type byte + TLV header. */
export const TOKEN_2022_ATA_SIZE: number = getAccountLen([ExtensionType.ImmutableOwner]);
/** Size of a Metaplex Metadata v1 account as CreateMetadataAccountV3 allocates it (MAX_METADATA_LEN). */
export const METADATA_SIZE = 679;

/** Rent-exempt minimum for `size` bytes (the real formula: (128 + size) × 3480 × 2). */
export function rentExempt(size: number): number {
  return (128 + size) * 6960;
}

export const TOKEN_ACCOUNT_RENT = rentExempt(TOKEN_ACCOUNT_SIZE);
export const TOKEN_2022_ATA_RENT = rentExempt(TOKEN_2022_ATA_SIZE);

export function isTokenProgramId(id: string): boolean {
  return id === SPL_TOKEN_PROGRAM || id === TOKEN_2022_PROGRAM;
}

/**
 * Token-2022 accounts longer than the base carry an account-type byte at 165 (1 = Mint,
 * 2 = Account); an SPL Token mint is exactly 82 bytes and a token account exactly 165.
 */
export function isMintAccount(owner: string, data: Uint8Array): boolean {
  if (!isTokenProgramId(owner)) return false;
  if (data.length === MINT_SIZE) return true;
  return owner === TOKEN_2022_PROGRAM && data.length > ACCOUNT_SIZE && data.length !== MULTISIG_SIZE && data[ACCOUNT_SIZE] === AccountType.Mint;
}

export function isTokenAccount(owner: string, data: Uint8Array): boolean {
  if (!isTokenProgramId(owner)) return false;
  if (data.length === ACCOUNT_SIZE) return true;
  return owner === TOKEN_2022_PROGRAM && data.length > ACCOUNT_SIZE && data.length !== MULTISIG_SIZE && data[ACCOUNT_SIZE] === AccountType.Account;
}

// ---- mints -------------------------------------------------------------------------------------

export interface MintFields {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  freezeAuthority: string | null;
}

/** Name, symbol and uri as the token-metadata interface holds them (Token-2022's TokenMetadata). */
export interface TokenMetadataFields {
  updateAuthority: string | null;
  mint: string;
  name: string;
  symbol: string;
  uri: string;
  additionalMetadata: [string, string][];
}

export interface Token2022Extensions {
  /** MetadataPointer: who may change it, and the account that holds the metadata (maybe the mint itself). */
  metadataPointer?: { authority: string | null; metadataAddress: string | null };
  /** TokenMetadata inside the mint (the pointer then names the mint). */
  tokenMetadata?: TokenMetadataFields;
}

/** The 82-byte base state, with spl-token's MintLayout. */
export function encodeMint(mint: MintFields): Uint8Array {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: mint.mintAuthority === null ? 0 : 1,
      mintAuthority: mint.mintAuthority === null ? PublicKey.default : new PublicKey(mint.mintAuthority),
      supply: mint.supply,
      decimals: mint.decimals,
      isInitialized: true,
      freezeAuthorityOption: mint.freezeAuthority === null ? 0 : 1,
      freezeAuthority: mint.freezeAuthority === null ? PublicKey.default : new PublicKey(mint.freezeAuthority),
    },
    data,
  );
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A Token-2022 mint with extensions, as the program lays it out: the 82-byte base, zeros up to
 * 165, the account type (1 = Mint) at 165, then TLV entries (u16 type, u16 length, value) in the
 * order they were initialized — MetadataPointer (before InitializeMint), TokenMetadata (after).
 */
export function encodeToken2022Mint(mint: MintFields, extensions: Token2022Extensions): Uint8Array {
  const entries: { type: ExtensionType; value: Uint8Array }[] = [];
  if (extensions.metadataPointer) {
    const value = Buffer.alloc(METADATA_POINTER_SIZE);
    const { authority, metadataAddress } = extensions.metadataPointer;
    MetadataPointerLayout.encode({ authority: optionalKey(authority), metadataAddress: optionalKey(metadataAddress) }, value);
    entries.push({ type: ExtensionType.MetadataPointer, value });
  }
  if (extensions.tokenMetadata) entries.push({ type: ExtensionType.TokenMetadata, value: packTokenMetadataFields(extensions.tokenMetadata) });
  if (entries.length === 0) return encodeMint(mint);

  // getMintLen sizes the fixed-length extensions; TokenMetadata is variable (its TLV entry follows).
  const fixedTypes = entries.filter((e) => e.type !== ExtensionType.TokenMetadata).map((e) => e.type);
  const fixed = fixedTypes.length > 0 ? getMintLen(fixedTypes) : ACCOUNT_SIZE + ACCOUNT_TYPE_SIZE;
  const variable = entries.filter((e) => e.type === ExtensionType.TokenMetadata).reduce((n, e) => n + TYPE_SIZE + LENGTH_SIZE + e.value.length, 0);
  const size = fixed + variable;
  // The program pads an account that would be multisig-sized; no simulated mint comes near it.
  if (size === MULTISIG_SIZE) throw new RangeError(`a Token-2022 mint of ${MULTISIG_SIZE} bytes reads as a multisig`);
  const data = new Uint8Array(size);
  data.set(encodeMint(mint), 0);
  data[ACCOUNT_SIZE] = AccountType.Mint;
  const view = new DataView(data.buffer);
  let at = ACCOUNT_SIZE + ACCOUNT_TYPE_SIZE;
  for (const { type, value } of entries) {
    view.setUint16(at, type, true);
    view.setUint16(at + TYPE_SIZE, value.length, true);
    data.set(value, at + TYPE_SIZE + LENGTH_SIZE);
    at += TYPE_SIZE + LENGTH_SIZE + value.length;
  }
  if (at !== size) throw new Error(`Token-2022 mint layout: wrote ${at} of ${size} bytes`);
  return data;
}

export const mintDecimals = (data: Uint8Array): number => data[44];

/** spl-token-metadata's `pack` of the fields (update_authority, mint, name, symbol, uri, additional_metadata). */
function packTokenMetadataFields(meta: TokenMetadataFields): Uint8Array {
  return Uint8Array.from(
    packTokenMetadata({
      updateAuthority: meta.updateAuthority === null ? undefined : new PublicKey(meta.updateAuthority),
      mint: new PublicKey(meta.mint),
      name: meta.name,
      symbol: meta.symbol,
      uri: meta.uri,
      additionalMetadata: meta.additionalMetadata,
    }),
  );
}

/**
 * The token-metadata interface state in an account of its own (what a MetadataPointer may name
 * instead of the mint): the interface's 8-byte discriminator, a u32 LE length, then the packed
 * TokenMetadata — one TLV entry, as spl-type-length-value writes it.
 */
export function encodeTokenMetadataState(meta: TokenMetadataFields): Uint8Array {
  const value = packTokenMetadataFields(meta);
  const data = new Uint8Array(TOKEN_METADATA_DISCRIMINATOR.length + 4 + value.length);
  data.set(TOKEN_METADATA_DISCRIMINATOR, 0);
  new DataView(data.buffer).setUint32(TOKEN_METADATA_DISCRIMINATOR.length, value.length, true);
  data.set(value, TOKEN_METADATA_DISCRIMINATOR.length + 4);
  return data;
}

function optionalKey(address: string | null): PublicKey {
  return address === null ? PublicKey.default : new PublicKey(address);
}

// ---- Metaplex ----------------------------------------------------------------------------------

export interface MetadataFields {
  updateAuthority: string;
  mint: string;
  name: string;
  symbol: string;
  uri: string;
  /**
   * NUL-pad name, symbol and uri to 32 / 10 / 200 bytes, as the Metaplex program did before v1.3
   * (most mainnet tokens still read like that); false: the strings as given.
   */
  puffed: boolean;
}

/** Metaplex's caps on name, symbol and uri, in UTF-8 bytes (MAX_NAME_LENGTH etc.). */
export const METAPLEX_STRING_CAPS = { name: 32, symbol: 10, uri: 200 } as const;

/**
 * A Metaplex Metadata v1 account (key MetadataV1, fungible, mutable, edition nonce 255, no
 * creators/collection/uses) serialized by mpl-token-metadata itself, zero-padded to 679 bytes.
 */
export function encodeMetadata(meta: MetadataFields): Uint8Array {
  const text = (value: string, field: keyof typeof METAPLEX_STRING_CAPS) => {
    const bytes = Buffer.byteLength(value, 'utf8');
    const cap = METAPLEX_STRING_CAPS[field];
    if (bytes > cap) throw new RangeError(`Metaplex ${field} longer than ${cap} bytes: ${value}`);
    return meta.puffed ? value + '\0'.repeat(cap - bytes) : value;
  };
  const serialized = getMetadataAccountDataSerializer().serialize({
    updateAuthority: umiPublicKey(meta.updateAuthority),
    mint: umiPublicKey(meta.mint),
    name: text(meta.name, 'name'),
    symbol: text(meta.symbol, 'symbol'),
    uri: text(meta.uri, 'uri'),
    sellerFeeBasisPoints: 0,
    creators: none(),
    primarySaleHappened: false,
    isMutable: true,
    editionNonce: some(255),
    tokenStandard: some(TokenStandard.Fungible),
    collection: none(),
    uses: none(),
    collectionDetails: none(),
    programmableConfig: none(),
  });
  if (serialized.length > METADATA_SIZE) throw new RangeError(`Metaplex metadata of ${serialized.length} bytes exceeds ${METADATA_SIZE}`);
  const data = new Uint8Array(METADATA_SIZE);
  data.set(serialized, 0);
  return data;
}

/** Mint, name, symbol and uri of a Metaplex metadata account, read by mpl-token-metadata (NUL padding trimmed). */
export function decodeMetadata(data: Uint8Array): { mint: string; name: string; symbol: string; uri: string } {
  const [meta] = getMetadataAccountDataSerializer().deserialize(data);
  const trim = (text: string) => text.replace(/\0+$/, '');
  return { mint: meta.mint.toString(), name: trim(meta.name), symbol: trim(meta.symbol), uri: trim(meta.uri) };
}

// ---- token accounts ----------------------------------------------------------------------------

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

/**
 * An initialized token account with spl-token's AccountLayout; Token-2022 (associated) accounts
 * add the account type (2 = Account) and the zero-length ImmutableOwner extension.
 */
export function encodeTokenAccount(account: TokenAccountFields): Uint8Array {
  const data = Buffer.alloc(tokenAccountSize(account.tokenProgram));
  AccountLayout.encode(
    {
      mint: new PublicKey(account.mint),
      owner: new PublicKey(account.owner),
      amount: account.amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: SplAccountState.Initialized,
      isNativeOption: account.nativeReserve === null ? 0 : 1,
      isNative: BigInt(account.nativeReserve ?? 0),
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  if (account.tokenProgram === TOKEN_2022_PROGRAM) {
    data[ACCOUNT_SIZE] = AccountType.Account;
    data.writeUInt16LE(ExtensionType.ImmutableOwner, ACCOUNT_SIZE + ACCOUNT_TYPE_SIZE);
    data.writeUInt16LE(0, ACCOUNT_SIZE + ACCOUNT_TYPE_SIZE + TYPE_SIZE);
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
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

// ---- address lookup tables ---------------------------------------------------------------------

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
