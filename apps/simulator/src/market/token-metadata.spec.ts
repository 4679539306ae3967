import {
  getMetadataAccountDataSerializer,
  getUpdateMetadataAccountV2InstructionDataSerializer,
  MPL_TOKEN_METADATA_PROGRAM_ID,
} from '@metaplex-foundation/mpl-token-metadata';
import { isSome } from '@metaplex-foundation/umi';
import {
  ExtensionType,
  getExtensionData,
  getMetadataPointerState,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackMint,
  type Mint,
} from '@solana/spl-token';
import { TOKEN_METADATA_DISCRIMINATOR, unpack as unpackTokenMetadata } from '@solana/spl-token-metadata';
import { PublicKey } from '@solana/web3.js';
import { decodeBase58 } from '@hadron/domain';
import type { AccountState } from '../ledger/ledger';
import { generateMarket } from '../simulator';
import { TOKEN_RENAMES } from './catalog';
import type { TokenFact } from './ground-truth';
import type { SimulatedMarket } from './market-generator';

/**
 * TOKEN METADATA AS A CLIENT READS IT. For every token of a generated default market, the mint and
 * the account holding its name are read from the ledger and decoded with the field's libraries
 * only (spl-token, spl-token-metadata, mpl-token-metadata, web3.js) — never with the simulator's or
 * the indexer's own code — and must say what the ground truth says. Then the rename: the chain
 * reads the old name before its slot and the new one from it.
 */

const HISTORY_END_MS = 1_750_000_000_000;
const METAPLEX = new PublicKey(MPL_TOKEN_METADATA_PROGRAM_ID);

let market: SimulatedMarket;

beforeAll(() => {
  market = generateMarket({ cluster: 'mainnet-beta', seed: 'token-metadata', historySeconds: 60, historyEndTimeMs: HISTORY_END_MS });
});

/** The Metaplex metadata PDA of a mint, as web3.js derives it (what mpl's findMetadataPda computes). */
function metaplexPda(mint: string): string {
  return PublicKey.findProgramAddressSync([Buffer.from('metadata'), METAPLEX.toBuffer(), new PublicKey(mint).toBuffer()], METAPLEX)[0].toBase58();
}

function mintOf(m: SimulatedMarket, t: TokenFact, slot?: number): Mint {
  const state = m.ledger.getAccount(t.mint, slot)!;
  const owner = new PublicKey(state.owner);
  return unpackMint(new PublicKey(t.mint), { data: Buffer.from(state.data), owner, lamports: state.lamports, executable: false }, owner);
}

/** Mint, name and symbol the chain gives `t` at `slot`, read with the libraries the way a client does. */
function readName(m: SimulatedMarket, t: TokenFact, slot?: number): { mint: string; name: string; symbol: string } | null {
  const metaplex = m.ledger.getAccount(metaplexPda(t.mint), slot);
  if (metaplex) {
    expect(metaplex.owner).toBe(METAPLEX.toBase58());
    const [meta] = getMetadataAccountDataSerializer().deserialize(metaplex.data);
    return { mint: meta.mint.toString(), name: meta.name, symbol: meta.symbol };
  }
  const mint = mintOf(m, t, slot);
  const pointer = mint.tlvData.length > 0 ? getMetadataPointerState(mint) : null;
  if (!pointer?.metadataAddress) return null;
  const inMint = getExtensionData(ExtensionType.TokenMetadata, mint.tlvData);
  const value = pointer.metadataAddress.toBase58() === t.mint ? inMint : interfaceValue(m.ledger.getAccount(pointer.metadataAddress.toBase58(), slot));
  if (!value) return null;
  const meta = unpackTokenMetadata(value);
  return { mint: meta.mint.toBase58(), name: meta.name, symbol: meta.symbol };
}

/** The TokenMetadata value in an account holding the interface state (discriminator, u32 length, value). */
function interfaceValue(state: AccountState | null): Buffer | null {
  if (!state) return null;
  const data = Buffer.from(state.data);
  if (!data.subarray(0, 8).equals(TOKEN_METADATA_DISCRIMINATOR)) return null;
  return data.subarray(12, 12 + data.readUInt32LE(8));
}

describe('every token of the default market, read with the field’s libraries', () => {
  it('covers every way the chain keeps a name: Metaplex (exact and puffed), Token-2022 in the mint, a pointer to another account, none', () => {
    const tokens = market.groundTruth().tokens;
    expect(tokens).toHaveLength(8);
    const bySource = (source: string) => tokens.filter((t) => t.metadata_source === source).map((t) => t.symbol || t.mint);
    // HDRN is renamed HDRN2 halfway through this history.
    expect(bySource('metaplex').sort()).toEqual(['BONQ', 'HDRN2', 'SOL', 'USDC', 'ZERO']);
    expect(bySource('token-2022')).toEqual(['TTWO']);
    expect(bySource('pointer')).toEqual(['WBTX']);
    expect(tokens.filter((t) => t.metadata_source === 'none')).toHaveLength(1);
    const puffed = tokens
      .filter((t) => t.metadata_source === 'metaplex')
      .map((t) => [t.symbol, Buffer.from(market.ledger.getAccount(t.metadata!)!.data).readUInt32LE(65)]);
    // Borsh length of the name: 32 when NUL-padded, the name's own length when exact (BONQ).
    expect(Object.fromEntries(puffed)).toEqual({ USDC: 32, SOL: 32, BONQ: Buffer.byteLength('Bonq Inu'), HDRN2: 32, ZERO: 32 });
  });

  it('decimals, name and symbol (NUL padding stripped) are the ground truth’s; each metadata names its mint', () => {
    for (const t of market.groundTruth().tokens) {
      const mint = mintOf(market, t);
      expect(mint.decimals).toBe(t.decimals);
      expect(mint.isInitialized).toBe(true);
      const read = readName(market, t);
      if (t.metadata_source === 'none') {
        expect([read, t.metadata, t.symbol, t.name, t.uri]).toEqual([null, null, '', '', null]);
        continue;
      }
      expect(read).toEqual({ mint: t.mint, name: t.name.replace(/\0+$/, ''), symbol: t.symbol.replace(/\0+$/, '') });
      expect(t.name).not.toBe('');
    }
  });

  it('SPL Token mints are 82 bytes and carry their name in the Metaplex PDA (as web3.js derives it)', () => {
    for (const t of market.groundTruth().tokens.filter((t) => t.token_program === TOKEN_PROGRAM_ID.toBase58())) {
      expect(market.ledger.getAccount(t.mint)!.data.length).toBe(MINT_SIZE);
      if (t.metadata_source === 'none') {
        expect(market.ledger.getAccount(metaplexPda(t.mint))).toBeNull();
        continue;
      }
      expect(t.metadata_source).toBe('metaplex');
      expect(t.metadata).toBe(metaplexPda(t.mint));
      const account = market.ledger.getAccount(t.metadata!)!;
      expect([account.owner, account.data.length]).toEqual([METAPLEX.toBase58(), 679]);
      const [meta] = getMetadataAccountDataSerializer().deserialize(account.data);
      expect([meta.mint.toString(), meta.uri]).toEqual([t.mint, t.uri]);
    }
  });

  it('TTWO: a Token-2022 mint whose MetadataPointer names itself, the TokenMetadata extension inside; no Metaplex account', () => {
    const t = market.groundTruth().tokens.find((x) => x.metadata_source === 'token-2022')!;
    expect([t.symbol, t.token_program, t.metadata]).toEqual(['TTWO', TOKEN_2022_PROGRAM_ID.toBase58(), t.mint]);
    const mint = mintOf(market, t);
    expect(getMetadataPointerState(mint)?.metadataAddress?.toBase58()).toBe(t.mint);
    const meta = unpackTokenMetadata(getExtensionData(ExtensionType.TokenMetadata, mint.tlvData)!);
    expect([meta.mint.toBase58(), meta.name, meta.symbol, meta.uri]).toEqual([t.mint, t.name, t.symbol, t.uri]);
    expect(market.ledger.getAccount(metaplexPda(t.mint))).toBeNull();
  });

  it('WBTX: a Token-2022 mint whose MetadataPointer names an account of a token-metadata program; no Metaplex account, nothing in the mint', () => {
    const t = market.groundTruth().tokens.find((x) => x.metadata_source === 'pointer')!;
    expect([t.symbol, t.token_program]).toEqual(['WBTX', TOKEN_2022_PROGRAM_ID.toBase58()]);
    const mint = mintOf(market, t);
    expect(getMetadataPointerState(mint)?.metadataAddress?.toBase58()).toBe(t.metadata);
    expect(getExtensionData(ExtensionType.TokenMetadata, mint.tlvData)).toBeNull();
    const account = market.ledger.getAccount(t.metadata!)!;
    expect(account.owner).toBe(market.tokenMetadataProgram);
    expect(market.ledger.getAccount(market.tokenMetadataProgram)?.executable).toBe(true);
    const meta = unpackTokenMetadata(interfaceValue(account)!);
    expect([meta.mint.toBase58(), meta.name, meta.symbol, meta.uri]).toEqual([t.mint, t.name, t.symbol, t.uri]);
    expect(market.ledger.getAccount(metaplexPda(t.mint))).toBeNull();
  });

  it('the pools’ symbols are their tokens’ symbols on chain', () => {
    const gt = market.groundTruth();
    const tokens = new Map(gt.tokens.map((t) => [t.mint, t]));
    for (const p of gt.pools) expect([p.symbol_x, p.symbol_y]).toEqual([tokens.get(p.mint_x)!.symbol, tokens.get(p.mint_y)!.symbol]);
  });
});

describe('a token renamed on chain', () => {
  const [rename] = TOKEN_RENAMES;

  it('within the history: the old name before the rename slot, the new one from it, by an UpdateMetadataAccountV2 of the update authority', () => {
    const t = market.groundTruth().tokens.find((x) => x.renames.length > 0)!;
    expect(t.renames).toEqual([{ slot: expect.any(Number), symbol: rename.symbol, name: rename.name, before: { symbol: 'HDRN', name: 'Hadron Test Token' } }]);
    const { slot } = t.renames[0];
    expect([t.symbol, t.name]).toEqual([rename.symbol, rename.name]);
    expect(readName(market, t, slot - 1)).toEqual({ mint: t.mint, name: 'Hadron Test Token', symbol: 'HDRN' });
    expect(readName(market, t, slot)).toEqual({ mint: t.mint, name: rename.name, symbol: rename.symbol });

    // The transaction that did it: Metaplex, writing the metadata account, signed by its update authority.
    const txs = market.ledger.block(slot)!.transactions.map((tx) => JSON.parse(tx.transactionJson));
    const updates = txs.flatMap((tx) =>
      (tx.message.instructions as { programIdIndex: number; accounts: number[]; data: string }[])
        .filter((ix) => tx.message.accountKeys[ix.programIdIndex] === METAPLEX.toBase58())
        .map((ix) => ({ keys: ix.accounts.map((i) => tx.message.accountKeys[i]), data: decodeBase58(ix.data), signer: tx.message.accountKeys[0] })),
    );
    expect(updates).toHaveLength(1);
    const [meta] = getMetadataAccountDataSerializer().deserialize(market.ledger.getAccount(t.metadata!)!.data);
    expect(updates[0].keys).toEqual([t.metadata, meta.updateAuthority.toString()]);
    expect(updates[0].signer).toBe(meta.updateAuthority.toString());
    const [args] = getUpdateMetadataAccountV2InstructionDataSerializer().deserialize(updates[0].data);
    expect(isSome(args.data) && [args.data.value.name, args.data.value.symbol]).toEqual([rename.name, rename.symbol]);
  });

  it('scheduled past the history: nothing renamed at first; the ground truth and the chain change together in a live slot', () => {
    const m = generateMarket({ cluster: 'devnet', seed: 'token-metadata-live', historySeconds: 20, scheduleSeconds: 60, historyEndTimeMs: HISTORY_END_MS });
    const before = m.groundTruth();
    const hdrn = before.tokens.find((t) => t.symbol === 'HDRN')!;
    expect(before.tokens.filter((t) => t.renames.length > 0)).toEqual([]);
    expect(readName(m, hdrn)).toEqual({ mint: hdrn.mint, name: 'Hadron Test Token', symbol: 'HDRN' });
    const pool = before.pools.find((p) => p.mint_x === hdrn.mint)!;
    expect(pool.symbol_x).toBe('HDRN');

    // Half of the 60 s schedule: 75 slots of 400 ms from the first slot.
    const renameSlot = before.first_slot + Math.floor(rename.at * 150);
    expect(renameSlot).toBeGreaterThan(before.history_end_slot);
    while (m.ledger.head < renameSlot + 5) m.produceSlot();
    const after = m.groundTruth();
    const renamed = after.tokens.find((t) => t.mint === hdrn.mint)!;
    expect(renamed.renames).toHaveLength(1);
    expect(renamed.renames[0].slot).toBeGreaterThanOrEqual(renameSlot); // the scheduled slot, or the next with a block
    expect([renamed.symbol, renamed.name]).toEqual([rename.symbol, rename.name]);
    expect(readName(m, renamed, renamed.renames[0].slot - 1)).toEqual({ mint: hdrn.mint, name: 'Hadron Test Token', symbol: 'HDRN' });
    expect(readName(m, renamed)).toEqual({ mint: hdrn.mint, name: rename.name, symbol: rename.symbol });
    expect(after.pools.find((p) => p.config === pool.config)!.symbol_x).toBe(rename.symbol);
    // A ground truth taken earlier is a snapshot: the rename did not change it.
    expect([before.tokens.find((t) => t.mint === hdrn.mint)!.renames, pool.symbol_x]).toEqual([[], 'HDRN']);
  });
});
