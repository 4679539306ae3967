import { getMetadataAccountDataSerializer, MPL_TOKEN_METADATA_PROGRAM_ID, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { none, publicKey, some } from '@metaplex-foundation/umi';
import {
  ACCOUNT_SIZE,
  AccountType,
  ExtensionType,
  getMintLen,
  LENGTH_SIZE,
  MetadataPointerLayout,
  MINT_SIZE,
  MintLayout,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  TYPE_SIZE,
} from '@solana/spl-token';
import { pack, TOKEN_METADATA_DISCRIMINATOR, type TokenMetadata as SplTokenMetadata } from '@solana/spl-token-metadata';
import { Keypair, PublicKey } from '@solana/web3.js';
import type { AccountData } from '../solana-rpc';

/**
 * Mint and metadata accounts for tests, built ONLY with the field's own serializers (spl-token,
 * spl-token-metadata, mpl-token-metadata), never with the indexer's: a wrong offset or layout in
 * the code under test cannot agree with these by construction. Test-only.
 */

export const METAPLEX_PROGRAM = new PublicKey(MPL_TOKEN_METADATA_PROGRAM_ID);
/** Size of a real mainnet Metaplex metadata account (zero-padded after the borsh data). */
export const METAPLEX_ACCOUNT_SIZE = 679;

/** An SPL Token mint (82 bytes; also a Token-2022 mint without extensions). */
export function mintData(decimals: number, isInitialized = true): Buffer {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority: Keypair.generate().publicKey,
      supply: 10n ** 15n,
      decimals,
      isInitialized,
      freezeAuthorityOption: 1,
      freezeAuthority: Keypair.generate().publicKey,
    },
    data,
  );
  return data;
}

/** One Token-2022 extension entry: u16 LE type, u16 LE length, value. */
function tlv(type: ExtensionType, value: Uint8Array): Buffer {
  const entry = Buffer.alloc(TYPE_SIZE + LENGTH_SIZE + value.length);
  entry.writeUInt16LE(type, 0);
  entry.writeUInt16LE(value.length, TYPE_SIZE);
  entry.set(value, TYPE_SIZE + LENGTH_SIZE);
  return entry;
}

export function tokenMetadata(mint: PublicKey, name: string, symbol: string): SplTokenMetadata {
  return {
    updateAuthority: Keypair.generate().publicKey,
    mint,
    name,
    symbol,
    uri: 'https://example.org/t22.json',
    additionalMetadata: [['twitter', '@example']],
  };
}

export interface Token2022Extensions {
  /** The address the MetadataPointer names (PublicKey.default: a pointer naming no address). */
  pointer?: PublicKey;
  /** The TokenMetadata extension; Token-2022 only initializes it behind a pointer. */
  metadata?: SplTokenMetadata;
}

/** A Token-2022 mint: no extension (82 bytes), or a MetadataPointer and optionally the TokenMetadata extension. */
export function token2022MintData(decimals: number, ext: Token2022Extensions = {}): Buffer {
  if (ext.pointer === undefined) {
    if (ext.metadata !== undefined) throw new Error('fixture: Token-2022 only initializes TokenMetadata behind a MetadataPointer');
    return mintData(decimals);
  }
  const fixed = Buffer.alloc(getMintLen([ExtensionType.MetadataPointer]));
  fixed.set(mintData(decimals));
  fixed[ACCOUNT_SIZE] = AccountType.Mint;
  const pointer = Buffer.alloc(MetadataPointerLayout.span);
  MetadataPointerLayout.encode({ authority: Keypair.generate().publicKey, metadataAddress: ext.pointer }, pointer);
  fixed.set(tlv(ExtensionType.MetadataPointer, pointer), ACCOUNT_SIZE + 1);
  return ext.metadata ? Buffer.concat([fixed, tlv(ExtensionType.TokenMetadata, pack(ext.metadata) as Uint8Array)]) : fixed;
}

/** The TokenMetadata interface state an external account holds: discriminator, u32 LE length, value. */
export function interfaceStateData(meta: SplTokenMetadata): Buffer {
  const value = Buffer.from(pack(meta) as Uint8Array);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(value.length);
  return Buffer.concat([TOKEN_METADATA_DISCRIMINATOR, length, value]);
}

/** NUL-pads to `bytes` UTF-8 bytes, as CreateMetadataAccount (v1/v2) stored name/symbol/uri. */
function puff(text: string, bytes: number): string {
  return text + '\0'.repeat(Math.max(0, bytes - Buffer.byteLength(text)));
}

/**
 * A Metaplex MetadataV1 account: mpl-token-metadata's serializer, zero-padded to 679 bytes.
 * `exact` strings as written today, or `puffed` (NUL-padded to 32/10/200 bytes) as older programs wrote them.
 */
export function metaplexAccountData(mint: PublicKey, name: string, symbol: string, style: 'exact' | 'puffed' = 'exact'): Buffer {
  const uri = 'https://example.org/token.json';
  const serialized = getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(Keypair.generate().publicKey.toBase58()),
    mint: publicKey(mint.toBase58()),
    name: style === 'puffed' ? puff(name, 32) : name,
    symbol: style === 'puffed' ? puff(symbol, 10) : symbol,
    uri: style === 'puffed' ? puff(uri, 200) : uri,
    sellerFeeBasisPoints: 0,
    creators: none(),
    primarySaleHappened: false,
    isMutable: true,
    editionNonce: some(254),
    tokenStandard: some(TokenStandard.Fungible),
    collection: none(),
    uses: none(),
    collectionDetails: none(),
    programmableConfig: none(),
  });
  const data = Buffer.alloc(Math.max(METAPLEX_ACCOUNT_SIZE, serialized.length));
  data.set(serialized);
  return data;
}

// ---- account wrappers: the data above as the RPC returns it ----

export function account(owner: string, data: Uint8Array, lamports = 2_039_280): AccountData {
  return { owner, lamports, data };
}

export function splMint(decimals: number): AccountData {
  return account(TOKEN_PROGRAM_ID.toBase58(), mintData(decimals), 1_461_600);
}

export function token2022Mint(decimals: number, ext: Token2022Extensions = {}): AccountData {
  return account(TOKEN_2022_PROGRAM_ID.toBase58(), token2022MintData(decimals, ext), 4_000_000);
}

export function metaplexAccount(mint: PublicKey, name: string, symbol: string, style: 'exact' | 'puffed' = 'puffed'): AccountData {
  return account(METAPLEX_PROGRAM.toBase58(), metaplexAccountData(mint, name, symbol, style), 5_616_720);
}
