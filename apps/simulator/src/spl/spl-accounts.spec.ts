import { getMetadataAccountDataSerializer, Key, MPL_TOKEN_METADATA_PROGRAM_ID, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { some } from '@metaplex-foundation/umi';
import {
  ACCOUNT_SIZE,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  ExtensionType,
  getExtensionData,
  getExtensionTypes,
  getMetadataPointerState,
  getMintLen,
  MINT_SIZE as SPL_MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount,
  unpackMint,
} from '@solana/spl-token';
import { pack, TOKEN_METADATA_DISCRIMINATOR, unpack } from '@solana/spl-token-metadata';
import { Keypair, PublicKey } from '@solana/web3.js';
import { associatedTokenAddress, metaplexMetadataAddress } from './addresses';
import {
  decodeMetadata,
  encodeMetadata,
  encodeMint,
  encodeToken2022Mint,
  encodeTokenAccount,
  encodeTokenMetadataState,
  isMintAccount,
  isTokenAccount,
  METADATA_SIZE,
  tokenAccountSize,
} from './spl-accounts';
import { NATIVE_MINT, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from './well-known';

/**
 * The simulator's account bytes, read back with the field's libraries only (spl-token,
 * spl-token-metadata, mpl-token-metadata, web3.js): what a real client — or the indexer — reads.
 */

const key = () => Keypair.generate().publicKey;
const MINT = key();
const AUTHORITY = key();
const info = (data: Uint8Array, owner: PublicKey) => ({ data: Buffer.from(data), owner, lamports: 1, executable: false });
const base = { mintAuthority: AUTHORITY.toBase58(), supply: 10n ** 18n, decimals: 7, freezeAuthority: null };
const metadataFields = {
  updateAuthority: AUTHORITY.toBase58(),
  mint: MINT.toBase58(),
  name: 'Token Twenty Two',
  symbol: 'TTWO',
  uri: 'https://tokens.example/ttwo.json',
  additionalMetadata: [['website', 'https://t.example']] as [string, string][],
};

describe('mints', () => {
  it('an SPL Token mint is MintLayout’s 82 bytes', () => {
    const data = encodeMint(base);
    expect(data.length).toBe(SPL_MINT_SIZE);
    const mint = unpackMint(MINT, info(data, TOKEN_PROGRAM_ID), TOKEN_PROGRAM_ID);
    expect([mint.mintAuthority?.toBase58(), mint.supply, mint.decimals, mint.isInitialized, mint.freezeAuthority, mint.tlvData.length]).toEqual([
      AUTHORITY.toBase58(),
      10n ** 18n,
      7,
      true,
      null,
      0,
    ]);
    expect(isMintAccount(SPL_TOKEN_PROGRAM, data)).toBe(true);
    expect(isTokenAccount(SPL_TOKEN_PROGRAM, data)).toBe(false);
    expect(unpackMint(MINT, info(encodeMint({ ...base, mintAuthority: null }), TOKEN_PROGRAM_ID)).mintAuthority).toBeNull();
  });

  it('a Token-2022 mint with the metadata in it: MetadataPointer to itself, then TokenMetadata', () => {
    const data = encodeToken2022Mint(base, {
      metadataPointer: { authority: AUTHORITY.toBase58(), metadataAddress: MINT.toBase58() },
      tokenMetadata: metadataFields,
    });
    expect(data.length).toBe(getMintLen([ExtensionType.MetadataPointer]) + 4 + pack({ ...metadataFields, updateAuthority: AUTHORITY, mint: MINT }).length);
    expect(data[ACCOUNT_SIZE]).toBe(1); // AccountType::Mint
    const mint = unpackMint(MINT, info(data, TOKEN_2022_PROGRAM_ID), TOKEN_2022_PROGRAM_ID);
    expect(mint.decimals).toBe(7);
    expect(getExtensionTypes(mint.tlvData)).toEqual([ExtensionType.MetadataPointer, ExtensionType.TokenMetadata]);
    const pointer = getMetadataPointerState(mint)!;
    expect([pointer.authority?.toBase58(), pointer.metadataAddress?.toBase58()]).toEqual([AUTHORITY.toBase58(), MINT.toBase58()]);
    const meta = unpack(getExtensionData(ExtensionType.TokenMetadata, mint.tlvData)!);
    expect({ ...meta, updateAuthority: meta.updateAuthority?.toBase58(), mint: meta.mint.toBase58() }).toEqual(metadataFields);
    expect(isMintAccount(TOKEN_2022_PROGRAM, data)).toBe(true);
    expect(isTokenAccount(TOKEN_2022_PROGRAM, data)).toBe(false);
  });

  it('a Token-2022 mint whose MetadataPointer names another account carries no TokenMetadata', () => {
    const elsewhere = key();
    const data = encodeToken2022Mint(base, { metadataPointer: { authority: null, metadataAddress: elsewhere.toBase58() } });
    expect(data.length).toBe(getMintLen([ExtensionType.MetadataPointer]));
    const mint = unpackMint(MINT, info(data, TOKEN_2022_PROGRAM_ID), TOKEN_2022_PROGRAM_ID);
    expect(getMetadataPointerState(mint)).toEqual({ authority: null, metadataAddress: elsewhere });
    expect(getExtensionData(ExtensionType.TokenMetadata, mint.tlvData)).toBeNull();
  });

  it('the token-metadata interface state of its own account: discriminator, u32 length, packed TokenMetadata', () => {
    const data = encodeTokenMetadataState({ ...metadataFields, additionalMetadata: [] });
    expect(Buffer.from(data.subarray(0, 8))).toEqual(TOKEN_METADATA_DISCRIMINATOR);
    const length = Buffer.from(data).readUInt32LE(8);
    expect(12 + length).toBe(data.length);
    const meta = unpack(data.subarray(12));
    expect([meta.mint.toBase58(), meta.updateAuthority?.toBase58(), meta.name, meta.symbol, meta.uri, meta.additionalMetadata]).toEqual([
      MINT.toBase58(),
      AUTHORITY.toBase58(),
      'Token Twenty Two',
      'TTWO',
      'https://tokens.example/ttwo.json',
      [],
    ]);
  });
});

describe('Metaplex metadata', () => {
  const fields = { updateAuthority: AUTHORITY.toBase58(), mint: MINT.toBase58(), name: 'Bonq Inu', symbol: 'BONQ', uri: 'https://tokens.example/bonq.json' };
  const read = (data: Uint8Array) => getMetadataAccountDataSerializer().deserialize(data)[0];

  it('exact strings, 679 bytes: as mpl-token-metadata reads it', () => {
    const data = encodeMetadata({ ...fields, puffed: false });
    expect(data.length).toBe(METADATA_SIZE);
    const meta = read(data);
    expect([meta.key, meta.updateAuthority.toString(), meta.mint.toString(), meta.name, meta.symbol, meta.uri]).toEqual([
      Key.MetadataV1,
      fields.updateAuthority,
      fields.mint,
      'Bonq Inu',
      'BONQ',
      fields.uri,
    ]);
    expect([meta.tokenStandard, meta.editionNonce, meta.isMutable, meta.sellerFeeBasisPoints]).toEqual([some(TokenStandard.Fungible), some(255), true, 0]);
    expect(decodeMetadata(data)).toEqual({ mint: fields.mint, name: 'Bonq Inu', symbol: 'BONQ', uri: fields.uri });
  });

  it('puffed: name, symbol and uri NUL-padded to 32 / 10 / 200 UTF-8 bytes, as most mainnet accounts', () => {
    const data = Buffer.from(encodeMetadata({ ...fields, name: 'Bonq Inü', puffed: true }));
    // Borsh strings after key, update authority and mint: u32 length, then the bytes.
    const name = data.readUInt32LE(65);
    const symbol = data.readUInt32LE(65 + 4 + name);
    const uri = data.readUInt32LE(65 + 4 + name + 4 + symbol);
    expect([name, symbol, uri]).toEqual([32, 10, 200]);
    expect(data.subarray(69, 69 + 32).toString('utf8')).toBe('Bonq Inü' + '\0'.repeat(32 - 9));
    // mpl-token-metadata strips the padding when it reads.
    const meta = read(data);
    expect([meta.name, meta.symbol, meta.uri]).toEqual(['Bonq Inü', 'BONQ', fields.uri]);
    expect(() => encodeMetadata({ ...fields, symbol: 'ELEVENCHARS', puffed: true })).toThrow(RangeError);
  });
});

describe('token accounts', () => {
  it('SPL Token: 165 bytes; Token-2022 ATAs: 170 with ImmutableOwner; native accounts keep their reserve', () => {
    const owner = key();
    for (const [program, programId] of [
      [SPL_TOKEN_PROGRAM, TOKEN_PROGRAM_ID],
      [TOKEN_2022_PROGRAM, TOKEN_2022_PROGRAM_ID],
    ] as const) {
      const data = encodeTokenAccount({ mint: MINT.toBase58(), owner: owner.toBase58(), amount: 123n, nativeReserve: null, tokenProgram: program });
      expect(data.length).toBe(tokenAccountSize(program));
      const account = unpackAccount(key(), info(data, programId), programId);
      expect([
        account.mint.toBase58(),
        account.owner.toBase58(),
        account.amount,
        account.isInitialized,
        account.isFrozen,
        account.isNative,
        account.delegate,
      ]).toEqual([MINT.toBase58(), owner.toBase58(), 123n, true, false, false, null]);
      expect(getExtensionTypes(account.tlvData)).toEqual(program === TOKEN_2022_PROGRAM ? [ExtensionType.ImmutableOwner] : []);
      expect([isTokenAccount(program, data), isMintAccount(program, data)]).toEqual([true, false]);
    }
    const wsol = encodeTokenAccount({ mint: NATIVE_MINT, owner: owner.toBase58(), amount: 5n, nativeReserve: 2_039_280, tokenProgram: SPL_TOKEN_PROGRAM });
    const account = unpackAccount(key(), info(wsol, TOKEN_PROGRAM_ID));
    expect([account.isNative, account.rentExemptReserve]).toEqual([true, 2_039_280n]);
  });
});

describe('addresses', () => {
  it('ATAs (owners on or off curve) and Metaplex PDAs, as web3.js derives them from their seeds', () => {
    const offCurve = PublicKey.findProgramAddressSync([Buffer.from('pool')], TOKEN_PROGRAM_ID)[0];
    for (const owner of [key(), offCurve]) {
      for (const program of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
        const [ata] = PublicKey.findProgramAddressSync([owner.toBuffer(), program.toBuffer(), MINT.toBuffer()], ASSOCIATED_TOKEN_PROGRAM_ID);
        expect(associatedTokenAddress(owner.toBase58(), MINT.toBase58(), program.toBase58())).toBe(ata.toBase58());
      }
    }
    const metaplex = new PublicKey(MPL_TOKEN_METADATA_PROGRAM_ID);
    const [pda] = PublicKey.findProgramAddressSync([Buffer.from('metadata'), metaplex.toBuffer(), MINT.toBuffer()], metaplex);
    expect(metaplexMetadataAddress(MINT.toBase58())).toBe(pda.toBase58());
  });
});
