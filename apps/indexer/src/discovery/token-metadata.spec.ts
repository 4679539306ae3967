import { getMetadataAccountDataSerializer, Key } from '@metaplex-foundation/mpl-token-metadata';
import { getMetadataPointerState, TOKEN_2022_PROGRAM_ID, unpackMint } from '@solana/spl-token';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import type { AccountData, SolanaRpc } from '../source/solana-rpc';
import {
  interfaceStateData,
  METAPLEX_ACCOUNT_SIZE,
  METAPLEX_PROGRAM,
  metaplexAccount,
  metaplexAccountData,
  mintData,
  splMint,
  token2022Mint,
  tokenMetadata,
} from '../source/testing/token-fixtures';
import { TokenList } from '../tokens/token-list';
import { PoolReader } from './pool-reader';
import { cleanText, decodeMetaplexMetadata, metaplexMetadataAddress, sameTokenMetadata, tokenMetadataOf } from './token-metadata';

/**
 * Token names as a user sees them, from accounts built ONLY with the field's own serializers
 * (mpl-token-metadata, spl-token, spl-token-metadata) and addresses derived with web3.js: a wrong
 * program id, seed or offset in the indexer cannot agree with these by construction.
 */

// ---- fixtures: the field's serializers, never ours (../source/testing/token-fixtures) ----

function metaplexPda(mint: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([Buffer.from('metadata'), METAPLEX_PROGRAM.toBuffer(), mint.toBuffer()], METAPLEX_PROGRAM)[0];
}

// ---- 1. the Metaplex PDA ----

describe('the Metaplex metadata address of a mint', () => {
  it.each(Array.from({ length: 6 }, () => [Keypair.generate().publicKey]))('is the PDA web3.js derives under the Metaplex program for %s', (mint) => {
    expect(metaplexMetadataAddress(mint.toBase58())).toBe(metaplexPda(mint).toBase58());
  });
});

// ---- 2. decoding a Metaplex metadata account ----

describe('the name and symbol a Metaplex metadata account shows', () => {
  const mint = Keypair.generate().publicKey;
  const show = (data: Uint8Array, forMint = mint) => decodeMetaplexMetadata(data, forMint.toBase58());

  it.each`
    what                                        | style       | name                            | symbol          | shownName        | shownSymbol
    ${'exact strings'}                          | ${'exact'}  | ${'Bonq Inu'}                   | ${'BONQ'}       | ${'Bonq Inu'}    | ${'BONQ'}
    ${'NUL-padded (puffed) strings'}            | ${'puffed'} | ${'Bonq Inu'}                   | ${'BONQ'}       | ${'Bonq Inu'}    | ${'BONQ'}
    ${'NUL-padded strings, another'}            | ${'puffed'} | ${'Wrapped SOL'}                | ${'SOL'}        | ${'Wrapped SOL'} | ${'SOL'}
    ${'whitespace around and inside'}           | ${'exact'}  | ${'  Bonq \t\n  Inu  '}         | ${' BONQ '}     | ${'Bonq Inu'}    | ${'BONQ'}
    ${'whitespace, puffed'}                     | ${'puffed'} | ${' Bonq  Inu'}                 | ${'BO\tNQ'}     | ${'Bonq Inu'}    | ${'BO NQ'}
    ${'bidi overrides (U+202E, U+202C)'}        | ${'exact'}  | ${'\u202EBonq Inu'}             | ${'BONQ\u202C'} | ${'Bonq Inu'}    | ${'BONQ'}
    ${'a bidi override between words'}          | ${'exact'}  | ${'Bonq \u202E Inu'}            | ${'BONQ'}       | ${'Bonq Inu'}    | ${'BONQ'}
    ${'zero-width and bidi isolate characters'} | ${'exact'}  | ${'\u200BBonq\uFEFF Inu\u200F'} | ${'\u2066BONQ'} | ${'Bonq Inu'}    | ${'BONQ'}
    ${'control characters'}                     | ${'exact'}  | ${'Bonq\u0007\u001b Inu\u007f'} | ${'\u0000BONQ'} | ${'Bonq Inu'}    | ${'BONQ'}
    ${'non-ASCII text and an emoji'}            | ${'puffed'} | ${'Ünïcødé 🚀'}                 | ${'ÜNI'}        | ${'Ünïcødé 🚀'}  | ${'ÜNI'}
    ${'empty strings'}                          | ${'exact'}  | ${''}                           | ${''}           | ${''}            | ${''}
  `('$what ($style) show as "$shownName" / "$shownSymbol"', ({ style, name, symbol, shownName, shownSymbol }) => {
    expect(show(metaplexAccountData(mint, name, symbol, style))).toEqual({ mint: mint.toBase58(), name: shownName, symbol: shownSymbol });
  });

  it('a real-size account is 679 bytes, zero-padded after what the serializer wrote (fixture check)', () => {
    const data = metaplexAccountData(mint, 'Bonq Inu', 'BONQ', 'puffed');
    expect(data.length).toBe(METAPLEX_ACCOUNT_SIZE);
    expect(getMetadataAccountDataSerializer().deserialize(data)[0]).toMatchObject({ key: Key.MetadataV1, mint: mint.toBase58(), name: 'Bonq Inu' }); // umi strips the NULs itself
    const nameAt = data.indexOf(Buffer.from('Bonq Inu'));
    expect(data.readUInt32LE(nameAt - 4)).toBe(32);
    expect(data.subarray(nameAt + 8, nameAt + 32).every((b) => b === 0)).toBe(true);
  });

  /** Serializes name/symbol, then overwrites the bytes of `target` (located in the output) with `patch`. */
  function patched(name: string, symbol: string, target: string, patch: number[]): Buffer {
    const data = metaplexAccountData(mint, name, symbol);
    const at = data.indexOf(Buffer.from(target));
    expect(at).toBeGreaterThan(64);
    data.set(patch, at);
    return data;
  }

  it.each`
    what                                         | name          | symbol    | target    | patch                 | shownName     | shownSymbol
    ${'invalid UTF-8 (0xff 0xfe) in the name'}   | ${'Bonq Inu'} | ${'BONQ'} | ${'nq'}   | ${[0xff, 0xfe]}       | ${''}         | ${'BONQ'}
    ${'an overlong "/" (0xc0 0xaf) in the name'} | ${'Bonq Inu'} | ${'BONQ'} | ${'nq'}   | ${[0xc0, 0xaf]}       | ${''}         | ${'BONQ'}
    ${'a UTF-8-encoded surrogate in the name'}   | ${'Bonq Inu'} | ${'BONQ'} | ${'Inu'}  | ${[0xed, 0xa0, 0x80]} | ${''}         | ${'BONQ'}
    ${'a lone continuation byte in the symbol'}  | ${'Bonq Inu'} | ${'BONQ'} | ${'BONQ'} | ${[0x42, 0x80]}       | ${'Bonq Inu'} | ${''}
  `('$what reads as "$shownName" / "$shownSymbol"', ({ name, symbol, target, patch, shownName, shownSymbol }) => {
    expect(show(patched(name, symbol, target, patch))).toEqual({ mint: mint.toBase58(), name: shownName, symbol: shownSymbol });
  });

  it.each`
    what                                 | name                                       | shownName
    ${'129 ASCII characters'}            | ${'A'.repeat(129)}                         | ${'A'.repeat(128)}
    ${'an emoji as the 128th character'} | ${'A'.repeat(127) + '🚀' + 'B'.repeat(10)} | ${'A'.repeat(127) + '🚀'}
    ${'an emoji as the 129th character'} | ${'A'.repeat(128) + '🚀'}                  | ${'A'.repeat(128)}
    ${'250 emoji (surrogate pairs)'}     | ${'😀'.repeat(250)}                        | ${'😀'.repeat(128)}
    ${'1000 bytes of 3-byte characters'} | ${'語'.repeat(333)}                        | ${'語'.repeat(128)}
  `('a name of $what is clipped to 128 characters, never half a character', ({ name, shownName }) => {
    const shown = show(metaplexAccountData(mint, name, 'LONG'))!;
    expect(shown.name).toBe(shownName);
    expect(shown.name).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/); // no lone surrogate
    expect(shown.symbol).toBe('LONG');
  });

  it('a symbol longer than 64 characters is clipped to 64', () => {
    expect(show(metaplexAccountData(mint, 'Long Symbol', 'S'.repeat(100)))!.symbol).toBe('S'.repeat(64));
  });

  it('an emoji ZWJ sequence in a name stays one emoji (the joiner is not an invisible trick)', () => {
    // 👨‍👩‍👧 is man, ZWJ, woman, ZWJ, girl: without the joiners a reader sees three people.
    expect(show(metaplexAccountData(mint, '👨\u200D👩\u200D👧 Family', 'FAM'))!.name).toBe('👨\u200D👩\u200D👧 Family');
  });

  it('a truncated account is no metadata, and never throws', () => {
    const data = metaplexAccountData(mint, 'Bonq Inu', 'BONQ', 'exact');
    const nameAt = data.indexOf(Buffer.from('Bonq Inu'));
    const symbolAt = data.indexOf(Buffer.from('BONQ'), nameAt + 8);
    const cuts = [0, 1, 32, 33, 64, 65, nameAt - 2, nameAt, nameAt + 3, nameAt + 7, nameAt + 8, nameAt + 10, symbolAt, symbolAt + 3];
    for (const cut of cuts) expect({ cut, shown: show(data.subarray(0, cut)) }).toEqual({ cut, shown: null });
  });

  it.each([Key.Uninitialized, Key.EditionV1, Key.MasterEditionV1, Key.MasterEditionV2, Key.EditionMarker, Key.TokenRecord, 0xff])(
    'an account whose key is %s (not MetadataV1) is no metadata',
    (key) => {
      const data = metaplexAccountData(mint, 'Bonq Inu', 'BONQ');
      data[0] = key;
      expect(show(data)).toBeNull();
    },
  );

  it('a metadata account for another mint (a PDA that belongs to another mint) is no metadata for this one', () => {
    const other = Keypair.generate().publicKey;
    expect(show(metaplexAccountData(other, 'Other Coin', 'OTH', 'puffed'))).toBeNull();
    expect(show(metaplexAccountData(other, 'Other Coin', 'OTH', 'puffed'), other)).toMatchObject({ name: 'Other Coin', symbol: 'OTH' });
  });

  it.each(['name', 'symbol'] as const)('a %s length prefix of 0xffffffff is no metadata, and never throws', (field) => {
    const data = metaplexAccountData(mint, 'Bonq Inu', 'BONQ', 'exact');
    const at = data.indexOf(Buffer.from(field === 'name' ? 'Bonq Inu' : 'BONQ'), 65) - 4;
    expect(data.readUInt32LE(at)).toBe(field === 'name' ? 8 : 4);
    data.writeUInt32LE(0xffffffff, at);
    expect(show(data)).toBeNull();
  });

  it('cleanText: U+FFFD (what a lenient decoder leaves of bad bytes) means no text', () => {
    expect(cleanText('Bonq\uFFFDInu', 128)).toBe('');
    expect(cleanText('Bonq\u0000\u0000', 128)).toBe('Bonq');
  });
});

// ---- what a user is shown: the curated list over the chain ----

describe('tokenMetadataOf', () => {
  const mint = Keypair.generate().publicKey.toBase58();
  const list = new TokenList([{ mint, symbol: 'LST', name: 'Listed Token', icon: 'https://icon/lst.png' }]);

  it('takes the curated entry over the chain, and its icon', () => {
    expect(tokenMetadataOf(mint, 6, { mint, name: 'Chain Name', symbol: 'CHN' }, list)).toEqual({
      mint,
      symbol: 'LST',
      name: 'Listed Token',
      decimals: 6,
      icon: 'https://icon/lst.png',
    });
  });

  it('ignores chain metadata that describes another mint', () => {
    const other = Keypair.generate().publicKey.toBase58();
    expect(tokenMetadataOf(other, 9, { mint, name: 'Chain Name', symbol: 'CHN' }, list)).toEqual({ mint: other, symbol: '', name: '', decimals: 9, icon: '' });
  });

  it('sameTokenMetadata: a change of symbol, name or icon is a rename; decimals are not compared', () => {
    const a = { mint, symbol: 'A', name: 'A', decimals: 6, icon: '' };
    expect(sameTokenMetadata(a, { ...a })).toBe(true);
    expect(sameTokenMetadata(a, { ...a, symbol: 'B' })).toBe(false);
    expect(sameTokenMetadata(a, { ...a, name: 'B' })).toBe(false);
    expect(sameTokenMetadata(a, { ...a, icon: 'x' })).toBe(false);
  });
});

// ---- 5. resolution order over RPC ----

describe('PoolReader.tokenMetadata: what each kind of mint is shown as', () => {
  /** An RPC holding `world` in memory; every call is recorded. */
  function memoryRpc(world: Map<string, AccountData>) {
    const calls: string[][] = [];
    const rpc = {
      getMultipleAccounts: async (addresses: readonly string[]) => {
        calls.push([...addresses]);
        return { slots: [777], accounts: new Map(addresses.map((a) => [a, world.get(a) ?? null])) };
      },
    } as unknown as SolanaRpc;
    return { rpc, calls };
  }

  const key = () => PublicKey.unique();

  interface Row {
    label: string;
    mint: PublicKey;
    accounts: [PublicKey, AccountData][];
    /** Token-2022: the address the MetadataPointer names (checked against spl-token's own reading). */
    pointer?: PublicKey;
    shown: { symbol: string; name: string; decimals: number; icon: string } | { unreadable: true };
  }

  const listedMint = key();
  const list = new TokenList([{ mint: listedMint.toBase58(), symbol: 'LST', name: 'Listed Token', icon: 'https://icon/lst.png' }]);
  const pointerTargets: PublicKey[] = [];

  const rows: Row[] = [
    (() => {
      const mint = key();
      return {
        label: 'SPL Token + Metaplex',
        mint,
        accounts: [
          [mint, splMint(6)],
          [metaplexPda(mint), metaplexAccount(mint, 'Bonq Inu', 'BONQ')],
        ],
        shown: { symbol: 'BONQ', name: 'Bonq Inu', decimals: 6, icon: '' },
      };
    })(),
    (() => {
      const mint = key();
      return { label: 'SPL Token without metadata', mint, accounts: [[mint, splMint(9)]], shown: { symbol: '', name: '', decimals: 9, icon: '' } };
    })(),
    (() => {
      const mint = key();
      return {
        label: 'Token-2022, metadata in the mint (wins over a Metaplex PDA)',
        mint,
        pointer: mint,
        accounts: [
          [mint, token2022Mint(5, { pointer: mint, metadata: tokenMetadata(mint, ' In  Mint ', 'INM\u202E') })],
          [metaplexPda(mint), metaplexAccount(mint, 'Metaplex Name', 'MPX')],
        ],
        shown: { symbol: 'INM', name: 'In Mint', decimals: 5, icon: '' },
      };
    })(),
    (() => {
      const mint = key();
      const external = key();
      pointerTargets.push(external);
      const owner = { owner: Keypair.generate().publicKey.toBase58(), lamports: 2_000_000, data: interfaceStateData(tokenMetadata(mint, 'External', 'EXT')) };
      return {
        label: 'Token-2022, pointer to an external TokenMetadata account',
        mint,
        pointer: external,
        accounts: [
          [mint, token2022Mint(8, { pointer: external })],
          [external, owner],
        ],
        shown: { symbol: 'EXT', name: 'External', decimals: 8, icon: '' },
      };
    })(),
    (() => {
      const mint = key();
      return {
        label: 'Token-2022, pointer to its Metaplex PDA',
        mint,
        pointer: metaplexPda(mint),
        accounts: [
          [mint, token2022Mint(2, { pointer: metaplexPda(mint) })],
          [metaplexPda(mint), metaplexAccount(mint, 'Via Pointer', 'VIA', 'exact')],
        ],
        shown: { symbol: 'VIA', name: 'Via Pointer', decimals: 2, icon: '' },
      };
    })(),
    (() => {
      const mint = key();
      const missing = key();
      pointerTargets.push(missing);
      return {
        label: 'Token-2022, pointer to a missing account: the Metaplex PDA',
        mint,
        pointer: missing,
        accounts: [
          [mint, token2022Mint(4, { pointer: missing })],
          [metaplexPda(mint), metaplexAccount(mint, 'Fallback', 'FBK')],
        ],
        shown: { symbol: 'FBK', name: 'Fallback', decimals: 4, icon: '' },
      };
    })(),
    (() => {
      const mint = key();
      return {
        label: 'Token-2022 with no metadata anywhere',
        mint,
        accounts: [[mint, token2022Mint(0)]],
        shown: { symbol: '', name: '', decimals: 0, icon: '' },
      };
    })(),
    (() => {
      const mint = key();
      return {
        label: 'Token-2022 pointing to itself without the extension: the Metaplex PDA',
        mint,
        pointer: mint,
        accounts: [
          [mint, token2022Mint(3, { pointer: mint })],
          [metaplexPda(mint), metaplexAccount(mint, 'Self Less', 'SLF')],
        ],
        shown: { symbol: 'SLF', name: 'Self Less', decimals: 3, icon: '' },
      };
    })(),
    { label: 'a mint the RPC does not return', mint: key(), accounts: [], shown: { unreadable: true } },
    (() => {
      const mint = key();
      return {
        label: 'a "mint" owned by the System program',
        mint,
        accounts: [[mint, { owner: SystemProgram.programId.toBase58(), lamports: 1, data: mintData(6) }]],
        shown: { unreadable: true },
      };
    })(),
    {
      label: 'a curated list entry over the chain names, with its icon',
      mint: listedMint,
      accounts: [
        [listedMint, splMint(6)],
        [metaplexPda(listedMint), metaplexAccount(listedMint, 'Chain Name', 'CHN')],
      ],
      shown: { symbol: 'LST', name: 'Listed Token', decimals: 6, icon: 'https://icon/lst.png' },
    },
  ];

  const world = new Map(rows.flatMap((r) => r.accounts.map(([a, acc]) => [a.toBase58(), acc] as const)));
  const mints = rows.map((r) => r.mint.toBase58());
  let result: Awaited<ReturnType<PoolReader['tokenMetadata']>>;
  let calls: string[][];

  beforeAll(async () => {
    const memory = memoryRpc(world);
    calls = memory.calls;
    result = await new PoolReader(memory.rpc, list).tokenMetadata([...mints, mints[0]], 700);
  });

  it('the Token-2022 fixtures read back with spl-token itself (fixture check)', () => {
    for (const row of rows) {
      const account = world.get(row.mint.toBase58());
      if (account?.owner !== TOKEN_2022_PROGRAM_ID.toBase58()) continue;
      const parsed = unpackMint(
        row.mint,
        { data: Buffer.from(account.data), owner: TOKEN_2022_PROGRAM_ID, lamports: account.lamports, executable: false },
        TOKEN_2022_PROGRAM_ID,
      );
      expect(parsed.isInitialized).toBe(true);
      expect(getMetadataPointerState(parsed)?.metadataAddress?.toBase58() ?? null).toBe(row.pointer?.toBase58() ?? null);
    }
  });

  it.each(rows.map((r) => [r.label, r] as const))('%s', (_label, row) => {
    const mint = row.mint.toBase58();
    if ('unreadable' in row.shown) {
      expect(result.tokens.has(mint)).toBe(false);
      expect(result.unreadable.get(mint)).toEqual(expect.stringContaining(mint));
    } else {
      expect(result.unreadable.has(mint)).toBe(false);
      expect(result.tokens.get(mint)).toEqual({ mint, ...row.shown });
    }
  });

  it('reads in two batched calls at most: mints with their Metaplex PDAs, then only the pointer targets not read yet', () => {
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(calls[0]).toHaveLength(new Set(calls[0]).size);
    expect(new Set(calls[0])).toEqual(new Set(rows.flatMap((r) => [r.mint.toBase58(), metaplexPda(r.mint).toBase58()])));
    expect(new Set(calls[1])).toEqual(new Set(pointerTargets.map((p) => p.toBase58())));
    expect(result.slot).toBe(777);
  });

  it('one call when no pointer names an account not read yet', async () => {
    const memory = memoryRpc(world);
    const plain = rows.filter((r) => !r.label.includes('pointer to an external') && !r.label.includes('missing account')).map((r) => r.mint.toBase58());
    await new PoolReader(memory.rpc, list).tokenMetadata(plain);
    expect(memory.calls).toHaveLength(1);
  });
});
