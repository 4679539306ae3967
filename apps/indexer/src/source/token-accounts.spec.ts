import {
  ACCOUNT_SIZE,
  AccountType,
  ExtensionType,
  getMetadataPointerState,
  getMintLen,
  LENGTH_SIZE,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  TYPE_SIZE,
  unpackMint,
} from '@solana/spl-token';
import { TOKEN_METADATA_DISCRIMINATOR } from '@solana/spl-token-metadata';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import type { AccountData } from './solana-rpc';
import {
  account,
  interfaceStateData,
  METAPLEX_PROGRAM,
  metaplexAccount,
  metaplexAccountData,
  mintData,
  token2022MintData,
  tokenMetadata,
} from './testing/token-fixtures';
import { readMetadataAccount, readMintAccount } from './token-accounts';

/**
 * Mint and metadata accounts as the token programs and Metaplex write them, built ONLY with the
 * field's serializers (spl-token, spl-token-metadata, mpl-token-metadata): the decimals and names a
 * user sees, and no throw on bytes no program would write.
 */

// ---- fixtures: the field's serializers, never ours (./testing/token-fixtures) ----

const SPL = TOKEN_PROGRAM_ID.toBase58();
const T22 = TOKEN_2022_PROGRAM_ID.toBase58();

/** spl-token's own reading of a Token-2022 fixture: the builder is right before the code under test reads it. */
function splTokenReads(mint: PublicKey, data: Buffer) {
  const parsed = unpackMint(mint, { data, owner: TOKEN_2022_PROGRAM_ID, lamports: 1, executable: false }, TOKEN_2022_PROGRAM_ID);
  return { decimals: parsed.decimals, pointer: getMetadataPointerState(parsed)?.metadataAddress?.toBase58() ?? null };
}

// ---- 3. mints ----

describe('readMintAccount: the decimals a mint shows', () => {
  const mint = Keypair.generate().publicKey;
  const read = (a: AccountData | null | undefined) => readMintAccount(mint.toBase58(), a);

  it.each([0, 6, 9, 255])('an SPL Token mint of %i decimals', (decimals) => {
    expect(read(account(SPL, mintData(decimals)))).toEqual({ ok: true, mint: { decimals, tokenProgram: SPL, inMint: null, pointer: null } });
  });

  it.each([0, 6, 9])('a Token-2022 mint without extensions (82 bytes) of %i decimals', (decimals) => {
    expect(read(account(T22, mintData(decimals)))).toEqual({ ok: true, mint: { decimals, tokenProgram: T22, inMint: null, pointer: null } });
  });

  it.each`
    what                                                                                 | a
    ${'no account (the RPC returned null)'}                                              | ${null}
    ${'no account (undefined)'}                                                          | ${undefined}
    ${'owned by the System program'}                                                     | ${account(SystemProgram.programId.toBase58(), mintData(6))}
    ${'owned by Metaplex'}                                                               | ${account(METAPLEX_PROGRAM.toBase58(), mintData(6))}
    ${'an SPL Token account of 165 bytes'}                                               | ${account(SPL, Buffer.concat([mintData(6), Buffer.alloc(ACCOUNT_SIZE - MINT_SIZE)]))}
    ${'an SPL Token-owned 234-byte "mint"'}                                              | ${account(SPL, token2022MintData(6, { pointer: mint }))}
    ${'an uninitialized SPL Token mint'}                                                 | ${account(SPL, mintData(6, false))}
    ${'an uninitialized Token-2022 mint'}                                                | ${account(T22, mintData(6, false))}
    ${'empty SPL Token data'}                                                            | ${account(SPL, new Uint8Array(0))}
    ${'empty Token-2022 data'}                                                           | ${account(T22, new Uint8Array(0))}
    ${'SPL Token data cut to 40 bytes'}                                                  | ${account(SPL, mintData(6).subarray(0, 40))}
    ${'Token-2022 data cut to 40 bytes'}                                                 | ${account(T22, mintData(6).subarray(0, 40))}
    ${'Token-2022 data of 100 bytes (no room for the account type)'}                     | ${account(T22, Buffer.concat([mintData(6), Buffer.alloc(18)]))}
    ${'Token-2022 data whose account type is Account'}                                   | ${account(T22, Buffer.from(token2022MintData(6, { pointer: mint })).fill(AccountType.Account, ACCOUNT_SIZE, ACCOUNT_SIZE + 1))}
    ${'82 bytes of 0xff under SPL Token (is_initialized 0xff, COption tags 0xffffffff)'} | ${account(SPL, Buffer.alloc(MINT_SIZE, 0xff))}
    ${'82 bytes of 0xff under Token-2022'}                                               | ${account(T22, Buffer.alloc(MINT_SIZE, 0xff))}
    ${'300 bytes of 0xff under Token-2022'}                                              | ${account(T22, Buffer.alloc(300, 0xff))}
  `('$what: not a mint, with why, and no throw', ({ a }) => {
    const result = read(a);
    expect(result).toEqual({ ok: false, why: expect.stringContaining(mint.toBase58()) });
  });

  it('pseudo-random garbage of every length 0..400 under either program never throws', () => {
    let seed = 12345;
    const byte = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    for (const owner of [SPL, T22])
      for (let length = 0; length <= 400; length++) {
        const data = Uint8Array.from({ length }, byte);
        expect(() => read(account(owner, data))).not.toThrow();
      }
  });

  describe('Token-2022 extensions', () => {
    it('a MetadataPointer: the address it names', () => {
      const target = Keypair.generate().publicKey;
      const data = token2022MintData(6, { pointer: target });
      expect(splTokenReads(mint, data)).toEqual({ decimals: 6, pointer: target.toBase58() });
      expect(read(account(T22, data))).toEqual({ ok: true, mint: { decimals: 6, tokenProgram: T22, inMint: null, pointer: target.toBase58() } });
    });

    it('a MetadataPointer naming no address (all zeros): no pointer', () => {
      expect(read(account(T22, token2022MintData(6, { pointer: PublicKey.default })))).toEqual({
        ok: true,
        mint: { decimals: 6, tokenProgram: T22, inMint: null, pointer: null },
      });
    });

    it('a pointer to itself and the TokenMetadata extension: the cleaned name and symbol', () => {
      const data = token2022MintData(9, { pointer: mint, metadata: tokenMetadata(mint, '  PayPal\u202E  USD\u0000 ', 'PYUSD\u200B') });
      expect(splTokenReads(mint, data)).toEqual({ decimals: 9, pointer: mint.toBase58() });
      expect(read(account(T22, data))).toEqual({
        ok: true,
        mint: { decimals: 9, tokenProgram: T22, inMint: { mint: mint.toBase58(), name: 'PayPal USD', symbol: 'PYUSD' }, pointer: mint.toBase58() },
      });
    });

    it('a TokenMetadata extension that describes another mint: no in-mint metadata', () => {
      const data = token2022MintData(9, { pointer: mint, metadata: tokenMetadata(Keypair.generate().publicKey, 'Impostor', 'IMP') });
      expect(read(account(T22, data))).toEqual({ ok: true, mint: { decimals: 9, tokenProgram: T22, inMint: null, pointer: mint.toBase58() } });
    });

    it('a TokenMetadata value cut short: decimals and pointer still read, no in-mint metadata, no throw', () => {
      const data = token2022MintData(9, { pointer: mint, metadata: tokenMetadata(mint, 'Cut Short', 'CUT') });
      const valueAt = getMintLen([ExtensionType.MetadataPointer]) + TYPE_SIZE + LENGTH_SIZE;
      const cuts = [valueAt - 3, valueAt, valueAt + 1, valueAt + 31, valueAt + 32, valueAt + 64, valueAt + 70, data.length - 20, data.length - 1];
      for (const cut of cuts) {
        expect({ cut, read: read(account(T22, data.subarray(0, cut))) }).toEqual({
          cut,
          read: { ok: true, mint: { decimals: 9, tokenProgram: T22, inMint: null, pointer: mint.toBase58() } },
        });
      }
    });

    it.each([2, 4, 10, 36, 40, 50, 67])('a MetadataPointer TLV cut after %i of its 68 bytes: no pointer, no throw', (kept) => {
      const target = Keypair.generate().publicKey;
      const data = token2022MintData(6, { pointer: target }).subarray(0, ACCOUNT_SIZE + 1 + kept);
      expect(read(account(T22, data))).toEqual({ ok: true, mint: { decimals: 6, tokenProgram: T22, inMint: null, pointer: null } });
    });
  });
});

// ---- 4. the account a pointer names (or the Metaplex PDA) ----

describe('readMetadataAccount: the name and symbol an account gives a mint', () => {
  const mint = Keypair.generate().publicKey;
  const address = Keypair.generate().publicKey.toBase58();
  const someProgram = Keypair.generate().publicKey.toBase58();
  const read = (a: AccountData | null | undefined, at = address) => readMetadataAccount(mint.toBase58(), at, a);
  const shown = (name: string, symbol: string) => ({ mint: mint.toBase58(), name, symbol });

  it('a Metaplex-owned account: the Metaplex metadata', () => {
    expect(read(metaplexAccount(mint, 'Bonq Inu', 'BONQ'))).toEqual(shown('Bonq Inu', 'BONQ'));
  });

  it('a Metaplex-owned account for another mint: none', () => {
    expect(read(metaplexAccount(Keypair.generate().publicKey, 'Bonq Inu', 'BONQ'))).toBeNull();
  });

  it('Metaplex bytes not owned by Metaplex: none', () => {
    expect(read(account(someProgram, metaplexAccountData(mint, 'Bonq Inu', 'BONQ', 'puffed')))).toBeNull();
  });

  it('the TokenMetadata interface state held by some other program: its name and symbol', () => {
    expect(read(account(someProgram, interfaceStateData(tokenMetadata(mint, 'External\u0000', ' EXT '))))).toEqual(shown('External', 'EXT'));
  });

  it('the interface state followed by spare zero bytes (an over-allocated account): its name and symbol', () => {
    expect(read(account(someProgram, Buffer.concat([interfaceStateData(tokenMetadata(mint, 'External', 'EXT')), Buffer.alloc(300)])))).toEqual(
      shown('External', 'EXT'),
    );
  });

  it('the interface state for another mint: none', () => {
    expect(read(account(someProgram, interfaceStateData(tokenMetadata(Keypair.generate().publicKey, 'External', 'EXT'))))).toBeNull();
  });

  it('a wrong discriminator: none', () => {
    const data = interfaceStateData(tokenMetadata(mint, 'External', 'EXT'));
    data[0] ^= 0xff;
    expect(read(account(someProgram, data))).toBeNull();
  });

  it.each([1, 100, 0xffffffff])('a length %i past the end: none, no throw', (extra) => {
    const data = interfaceStateData(tokenMetadata(mint, 'External', 'EXT'));
    const at = TOKEN_METADATA_DISCRIMINATOR.length;
    data.writeUInt32LE(Math.min(0xffffffff, data.readUInt32LE(at) + extra), at);
    expect(read(account(someProgram, data))).toBeNull();
  });

  it('the interface state cut anywhere: none, no throw', () => {
    const data = interfaceStateData(tokenMetadata(mint, 'External', 'EXT'));
    for (let cut = 0; cut < data.length; cut++) expect({ cut, read: read(account(someProgram, data.subarray(0, cut))) }).toEqual({ cut, read: null });
  });

  it('a Token-2022 mint carrying the TokenMetadata extension for our mint: its name and symbol', () => {
    const holder = Keypair.generate().publicKey;
    expect(read(account(T22, token2022MintData(0, { pointer: holder, metadata: tokenMetadata(mint, 'Held Elsewhere', 'HELD') })), holder.toBase58())).toEqual(
      shown('Held Elsewhere', 'HELD'),
    );
  });

  it('our own Token-2022 mint, read as the account its pointer names: its name and symbol', () => {
    expect(read(account(T22, token2022MintData(0, { pointer: mint, metadata: tokenMetadata(mint, 'Self Held', 'SELF') })), mint.toBase58())).toEqual(
      shown('Self Held', 'SELF'),
    );
  });

  it('a Token-2022 mint whose TokenMetadata describes itself, not our mint: none', () => {
    const holder = Keypair.generate().publicKey;
    expect(read(account(T22, token2022MintData(0, { pointer: holder, metadata: tokenMetadata(holder, 'Its Own', 'OWN') })), holder.toBase58())).toBeNull();
  });

  it('no account: none', () => {
    expect(read(null)).toBeNull();
    expect(read(undefined)).toBeNull();
  });
});
