import { getMetadataAccountDataSerializer, MPL_TOKEN_METADATA_PROGRAM_ID } from '@metaplex-foundation/mpl-token-metadata';
import { getMetadataPointerState, getMint, getTokenMetadata, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, TokenInvalidAccountOwnerError } from '@solana/spl-token';
import { TOKEN_METADATA_DISCRIMINATOR, unpack as unpackTokenMetadata } from '@solana/spl-token-metadata';
import { Connection, PublicKey, SolanaJSONRPCError, type ParsedInstruction, type PartiallyDecodedInstruction } from '@solana/web3.js';
import { decodeConfigAccount, decodeOracleAccount } from '@hadron/domain';
import { startSimulator, type RunningSimulator } from './simulator';
import type { GroundTruth, TokenMetadataSource } from './market/ground-truth';
import { HADRON_PROGRAM_V1, HADRON_PROGRAM_V2 } from './spl/well-known';

/**
 * @solana/web3.js 1.x, unmodified, against the simulated cluster: what the indexer will do, over
 * real HTTP. If any of this breaks, the indexer cannot be developed or tested offline.
 */

const HISTORY_END = 1_750_000_000_000;
let sim: RunningSimulator;
let connection: Connection;
let gt: GroundTruth;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'web3', pools: 8, historySeconds: 180, historyEndTimeMs: HISTORY_END, live: false });
  connection = new Connection(sim.urls['mainnet-beta'], { commitment: 'confirmed', disableRetryOnRateLimit: true });
  gt = sim.groundTruth('mainnet-beta');
});

afterAll(async () => {
  await sim.stop();
});

async function rawRpc(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

describe('accounts', () => {
  it('getProgramAccounts filters by dataSize and memcmp (v1 and v2 configs, oracles)', async () => {
    const v1Configs = await connection.getProgramAccounts(new PublicKey(HADRON_PROGRAM_V1), { filters: [{ dataSize: 248 }] });
    const v2Configs = await connection.getProgramAccounts(new PublicKey(HADRON_PROGRAM_V2), { filters: [{ dataSize: 724 }] });
    const configs = (version: string) =>
      gt.pools
        .filter((p) => p.program_version === version)
        .map((p) => p.config)
        .sort();
    expect(v1Configs.map((a) => a.pubkey.toBase58()).sort()).toEqual(configs('v1'));
    expect(v2Configs.map((a) => a.pubkey.toBase58()).sort()).toEqual(configs('v2'));
    for (const a of v2Configs) expect(decodeConfigAccount(a.account.data).version).toBe('v2');

    const sol = gt.pools[0].mint_x;
    const byMint = await connection.getProgramAccounts(new PublicKey(HADRON_PROGRAM_V1), {
      filters: [{ dataSize: 248 }, { memcmp: { offset: 41, bytes: sol } }],
    });
    expect(byMint.map((a) => a.pubkey.toBase58())).toEqual(gt.pools.filter((p) => p.program_version === 'v1' && p.mint_x === sol).map((p) => p.config));

    const oracles = await connection.getProgramAccounts(new PublicKey(HADRON_PROGRAM_V1), { filters: [{ dataSize: 64 }] });
    expect(oracles.map((a) => a.pubkey.toBase58()).sort()).toEqual(
      gt.pools
        .filter((p) => p.program_version === 'v1')
        .map((p) => p.oracle)
        .sort(),
    );

    const withContext = await connection.getProgramAccounts(new PublicKey(HADRON_PROGRAM_V2), { filters: [{ dataSize: 128 }], withContext: true });
    expect(withContext.context.slot).toBe(gt.head_slot);
    expect(withContext.value).toHaveLength(gt.pools.filter((p) => p.program_version === 'v2').length);
  });

  it('getAccountInfo and getMultipleAccountsInfo return current state (null for unknown keys)', async () => {
    const pool = gt.pools[0];
    const info = await connection.getAccountInfo(new PublicKey(pool.config));
    expect(info?.owner.toBase58()).toBe(pool.program);
    expect(decodeConfigAccount(info!.data).mint_y).toBe(pool.mint_y);
    const unknown = PublicKey.unique();
    const [oracle, vault, none] = await connection.getMultipleAccountsInfo([new PublicKey(pool.oracle), new PublicKey(pool.vault_x), unknown]);
    const lastUpdate = gt.oracle_updates.filter((u) => u.oracle === pool.oracle).pop()!;
    expect(decodeOracleAccount(oracle!.data).sequence).toBe(lastUpdate.sequence);
    expect(vault!.data.length).toBe(165);
    expect(none).toBeNull();
    const table = await connection.getAddressLookupTable(new PublicKey(pool.lookup_table));
    expect(table.value?.state.addresses.map((a) => a.toBase58())).toContain(pool.config);
    const parsed = await connection.getParsedAccountInfo(new PublicKey(pool.vault_y));
    expect(parsed.value?.data).toMatchObject({ program: 'spl-token', parsed: { type: 'account', info: { mint: pool.mint_y, owner: pool.config } } });
  });
});

describe('token mints and metadata, read by spl-token / spl-token-metadata / mpl-token-metadata over HTTP', () => {
  const token = (source: TokenMetadataSource) => gt.tokens.find((t) => t.metadata_source === source)!;

  it('getMint reads SPL Token mints, and Token-2022 mints (TTWO, WBTX) with their MetadataPointer', async () => {
    const usdc = gt.tokens.find((t) => t.token_program === TOKEN_PROGRAM_ID.toBase58() && t.symbol === 'USDC')!;
    const spl = await getMint(connection, new PublicKey(usdc.mint));
    expect([spl.decimals, spl.isInitialized, spl.tlvData.length]).toEqual([usdc.decimals, true, 0]);
    for (const t of [token('token-2022'), token('pointer')]) {
      expect(t.token_program).toBe(TOKEN_2022_PROGRAM_ID.toBase58());
      const mint = await getMint(connection, new PublicKey(t.mint), undefined, TOKEN_2022_PROGRAM_ID);
      expect(mint.decimals).toBe(t.decimals);
      expect(getMetadataPointerState(mint)?.metadataAddress?.toBase58()).toBe(t.metadata);
    }
    expect(token('token-2022').metadata).toBe(token('token-2022').mint);
    // Asked as an SPL Token mint, a Token-2022 mint is refused by its owner, as on a real cluster.
    await expect(getMint(connection, new PublicKey(token('pointer').mint))).rejects.toBeInstanceOf(TokenInvalidAccountOwnerError);
  });

  it('getTokenMetadata reads the metadata inside TTWO’s mint; WBTX’s lives in the account its pointer names', async () => {
    const ttwo = token('token-2022');
    const inMint = await getTokenMetadata(connection, new PublicKey(ttwo.mint));
    expect([inMint?.mint.toBase58(), inMint?.name, inMint?.symbol, inMint?.uri]).toEqual([ttwo.mint, ttwo.name, ttwo.symbol, ttwo.uri]);
    expect(ttwo.symbol).toBe('TTWO');

    const wbtx = token('pointer');
    expect(await getTokenMetadata(connection, new PublicKey(wbtx.mint))).toBeNull();
    const target = (await connection.getAccountInfo(new PublicKey(wbtx.metadata!)))!;
    expect(target.data.subarray(0, 8)).toEqual(TOKEN_METADATA_DISCRIMINATOR);
    const state = unpackTokenMetadata(target.data.subarray(12, 12 + target.data.readUInt32LE(8)));
    expect([state.mint.toBase58(), state.name, state.symbol]).toEqual([wbtx.mint, wbtx.name, wbtx.symbol]);
    expect(wbtx.symbol).toBe('WBTX');
    expect((await connection.getAccountInfo(target.owner))?.executable).toBe(true);
  });

  it('Metaplex metadata accounts read with mpl-token-metadata; a mint without metadata has none', async () => {
    const metaplex = gt.tokens.filter((t) => t.metadata_source === 'metaplex');
    expect(metaplex.length).toBeGreaterThanOrEqual(4);
    const accounts = await connection.getMultipleAccountsInfo(metaplex.map((t) => new PublicKey(t.metadata!)));
    for (const [i, t] of metaplex.entries()) {
      expect(accounts[i]!.owner.toBase58()).toBe(MPL_TOKEN_METADATA_PROGRAM_ID.toString());
      const [meta] = getMetadataAccountDataSerializer().deserialize(accounts[i]!.data);
      expect([meta.mint.toString(), meta.name, meta.symbol]).toEqual([t.mint, t.name, t.symbol]);
    }
    const anon = token('none');
    expect([anon.metadata, anon.symbol, anon.name]).toEqual([null, '', '']);
    const program = new PublicKey(MPL_TOKEN_METADATA_PROGRAM_ID);
    const [pda] = PublicKey.findProgramAddressSync([Buffer.from('metadata'), program.toBuffer(), new PublicKey(anon.mint).toBuffer()], program);
    expect(await connection.getAccountInfo(pda)).toBeNull();
  });

  it('jsonParsed renders a Token-2022 mint with its extensions, as the RPC names them', async () => {
    const ttwo = token('token-2022');
    const parsed = await connection.getParsedAccountInfo(new PublicKey(ttwo.mint));
    expect(parsed.value?.data).toMatchObject({
      program: 'spl-token-2022',
      parsed: {
        type: 'mint',
        info: {
          decimals: ttwo.decimals,
          extensions: [
            { extension: 'metadataPointer', state: { authority: expect.any(String), metadataAddress: ttwo.mint } },
            { extension: 'tokenMetadata', state: { mint: ttwo.mint, name: ttwo.name, symbol: ttwo.symbol, uri: ttwo.uri } },
          ],
        },
      },
    });
    const wbtxVault = gt.pools.find((p) => p.mint_x === token('pointer').mint)!.vault_x;
    const vault = await connection.getParsedAccountInfo(new PublicKey(wbtxVault));
    expect(vault.value?.data).toMatchObject({
      program: 'spl-token-2022',
      space: 170,
      parsed: { type: 'account', info: { mint: token('pointer').mint, extensions: [{ extension: 'immutableOwner' }] } },
    });
  });
});

describe('signatures and transactions', () => {
  it('getSignaturesForAddress pages newest first with before/until, without gaps or repeats', async () => {
    const address = new PublicKey(gt.pools[0].config);
    const all = await connection.getSignaturesForAddress(address, { limit: 1000 });
    expect(all.length).toBeGreaterThan(20);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].slot).toBeGreaterThanOrEqual(all[i].slot);
    expect(all[0]).toMatchObject({ memo: null, confirmationStatus: 'finalized' });
    expect(typeof all[0].blockTime).toBe('number');

    const paged: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await connection.getSignaturesForAddress(address, { limit: 7, before });
      if (page.length === 0) break;
      paged.push(...page.map((s) => s.signature));
      before = page[page.length - 1].signature;
    }
    expect(paged).toEqual(all.map((s) => s.signature));

    const until = all[10].signature;
    const newer = await connection.getSignaturesForAddress(address, { until });
    expect(newer.map((s) => s.signature)).toEqual(all.slice(0, 10).map((s) => s.signature));
    const window = await connection.getSignaturesForAddress(address, { before: all[3].signature, until: all[8].signature });
    expect(window.map((s) => s.signature)).toEqual(all.slice(4, 8).map((s) => s.signature));

    const failed = gt.failed_transactions.find((f) => f.kind === 'swap')!;
    const listed = await connection.getSignaturesForAddress(new PublicKey(failed.pool_config), { limit: 1000 });
    expect(listed.find((s) => s.signature === failed.signature)?.err).toEqual(failed.err);
  });

  it('getTransaction returns v0 transactions only with maxSupportedTransactionVersion (-32015 otherwise)', async () => {
    const v0 = gt.swaps.find((s) => s.tx_version === 0)!;
    const legacy = gt.swaps.find((s) => s.tx_version === 'legacy')!;
    const tx = await connection.getTransaction(v0.signature, { maxSupportedTransactionVersion: 0 });
    expect(tx?.version).toBe(0);
    expect(tx?.slot).toBe(v0.slot);
    expect(tx?.blockTime).toBe(v0.block_time);
    expect(tx?.meta?.loadedAddresses?.writable.length).toBeGreaterThan(0);
    expect(tx?.transaction.message.addressTableLookups.length).toBe(1);

    const error = await connection.getTransaction(v0.signature, {} as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolanaJSONRPCError);
    expect((error as SolanaJSONRPCError).code).toBe(-32015);
    expect((error as Error).message).toContain('Transaction version (0) is not supported by the requesting client');

    const old = await connection.getTransaction(legacy.signature, {} as never);
    expect(old?.transaction.signatures[0]).toBe(legacy.signature);
    expect(await connection.getTransaction('1'.repeat(64), { maxSupportedTransactionVersion: 0 })).toBeNull();
  });

  it('getTransactions fetches a batch; getParsedTransactions renders jsonParsed', async () => {
    const sigs = gt.swaps.slice(0, 12).map((s) => s.signature);
    const txs = await connection.getTransactions(sigs, { maxSupportedTransactionVersion: 0 });
    expect(txs.map((t) => t?.transaction.signatures[0])).toEqual(sigs);

    const cpi = gt.swaps.find((s) => s.route === 'cpi' && s.tx_version === 0)!;
    const [parsed] = await connection.getParsedTransactions([cpi.signature], { maxSupportedTransactionVersion: 0 });
    const inner = parsed!.meta!.innerInstructions!.find((g) => g.index === cpi.instruction_location.top_level_index)!.instructions;
    const hadron = inner[cpi.instruction_location.inner_index!] as PartiallyDecodedInstruction;
    expect(hadron.programId.toBase58()).toBe(cpi.program);
    expect(hadron.accounts[2].toBase58()).toBe(cpi.pool_config);
    const transfers = inner.filter((ix): ix is ParsedInstruction => 'parsed' in ix && ix.parsed.type === 'transfer');
    expect(transfers.map((t) => t.parsed.info.amount)).toContain(cpi.amount_out);
    expect(parsed!.transaction.message.accountKeys.some((k) => k.source === 'lookupTable')).toBe(true);
  });

  it('base64 encoding yields a wire transaction web3.js can deserialize', async () => {
    const v0 = gt.swaps.find((s) => s.tx_version === 0)!;
    const { text } = await rawRpc(sim.urls['mainnet-beta'], {
      jsonrpc: '2.0',
      id: 1,
      method: 'getTransaction',
      params: [v0.signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 }],
    });
    const [b64] = JSON.parse(text).result.transaction;
    const { VersionedTransaction } = await import('@solana/web3.js');
    const tx = VersionedTransaction.deserialize(Buffer.from(b64, 'base64'));
    expect(tx.message.version).toBe(0);
    expect(Buffer.from(tx.signatures[0]).length).toBe(64);
  });
});

describe('slots and blocks', () => {
  it('getSlot, getBlockTime, getBlockHeight, getLatestBlockhash, getBlock agree with the ledger', async () => {
    expect(await connection.getSlot()).toBe(gt.head_slot);
    const swap = gt.swaps[0];
    expect(await connection.getBlockTime(swap.slot)).toBe(swap.block_time);
    const market = sim.market('mainnet-beta');
    let skipped = gt.first_slot;
    while (market.ledger.block(skipped)) skipped++;
    const err = await connection.getBlockTime(skipped).catch((e: unknown) => e);
    expect((err as SolanaJSONRPCError).code).toBe(-32007);
    expect(((await connection.getBlockTime(gt.head_slot + 100).catch((e: unknown) => e)) as SolanaJSONRPCError).code).toBe(-32004);
    expect(await connection.getBlockHeight()).toBe(market.ledger.latestBlock(gt.head_slot)!.blockHeight);
    const latest = await connection.getLatestBlockhash();
    expect(latest.blockhash).toBe(market.ledger.latestBlock(gt.head_slot)!.blockhash);
    const block = await connection.getBlock(swap.slot, { maxSupportedTransactionVersion: 0 });
    expect(block?.transactions.map((t) => t.transaction.signatures[0])).toContain(swap.signature);
    expect((await connection.getVersion())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('unknown methods and bad params are JSON-RPC errors with the real codes', async () => {
    const url = sim.urls.devnet;
    expect(JSON.parse((await rawRpc(url, { jsonrpc: '2.0', id: 'x', method: 'getNothing' })).text)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: 'x',
    });
    expect(JSON.parse((await rawRpc(url, { jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: ['not-a-key'] })).text).error.code).toBe(-32602);
    expect(
      JSON.parse((await rawRpc(url, { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [gt.pools[0].config, { limit: 1001 }] })).text).error
        .code,
    ).toBe(-32602);
    const res = await fetch(url, { method: 'POST', body: '{"jsonrpc":' });
    expect(JSON.parse(await res.text()).error.code).toBe(-32700);
    const batch = JSON.parse(
      (
        await rawRpc(url, [
          { jsonrpc: '2.0', id: 1, method: 'getSlot' },
          { jsonrpc: '2.0', id: 2, method: 'getHealth' },
        ])
      ).text,
    );
    expect(batch.map((r: { id: number }) => r.id)).toEqual([1, 2]);
  });
});

describe('ground truth and determinism over HTTP', () => {
  it('GET /<cluster>/ground-truth is the ground truth', async () => {
    const res = await fetch(`${sim.urls.devnet}/ground-truth`);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(sim.groundTruth('devnet'))));
  });

  it('two simulators with the same seed answer byte-identically', async () => {
    const twin = await startSimulator({ port: 0, seed: 'web3', pools: 8, historySeconds: 180, historyEndTimeMs: HISTORY_END, live: false });
    try {
      const requests = [
        { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [HADRON_PROGRAM_V2, { limit: 50 }] },
        { jsonrpc: '2.0', id: 2, method: 'getProgramAccounts', params: [HADRON_PROGRAM_V1, { encoding: 'base64' }] },
        { jsonrpc: '2.0', id: 3, method: 'getTransaction', params: [gt.swaps[5].signature, { maxSupportedTransactionVersion: 0 }] },
        { jsonrpc: '2.0', id: 4, method: 'getBlock', params: [gt.swaps[5].slot, { maxSupportedTransactionVersion: 0 }] },
      ];
      for (const cluster of ['mainnet-beta', 'devnet'] as const) {
        const a = await rawRpc(sim.urls[cluster], requests);
        const b = await rawRpc(twin.urls[cluster], requests);
        expect(b.text).toBe(a.text);
      }
      expect(JSON.stringify(twin.groundTruth('mainnet-beta'))).toBe(JSON.stringify(gt));
    } finally {
      await twin.stop();
    }
  });
});

describe('faults', () => {
  afterEach(() => sim.setFaults('all', { rate: 0 }));

  it('injects 429, 5xx and malformed bodies at the configured rate', async () => {
    sim.setFaults('mainnet-beta', { rate: 1, kinds: ['429'] });
    await expect(connection.getSlot()).rejects.toThrow(/429/);
    sim.setFaults('mainnet-beta', { rate: 1, kinds: ['5xx'] });
    await expect(connection.getSlot()).rejects.toThrow(/50[0-4]/);
    sim.setFaults('mainnet-beta', { rate: 1, kinds: ['malformed'] });
    const res = await rawRpc(sim.urls['mainnet-beta'], { jsonrpc: '2.0', id: 1, method: 'getSlot' });
    expect(res.status).toBe(200);
    expect(() => JSON.parse(res.text)).toThrow();
    sim.setFaults('mainnet-beta', { rate: 0 });
    expect(await connection.getSlot()).toBe(gt.head_slot);
  });

  it('hangs past a client timeout', async () => {
    sim.setFaults('mainnet-beta', { rate: 1, kinds: ['timeout'], hangMs: 5_000 });
    const started = Date.now();
    const result = await fetch(sim.urls['mainnet-beta'], {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
      signal: AbortSignal.timeout(300),
    }).catch((e: Error) => e.name);
    expect(result).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a missing transaction answers null for its first K requests, then appears', async () => {
    sim.setFaults('mainnet-beta', { rate: 0, kinds: ['missing-tx'], missingTxRate: 1, missingTxRequests: 2 });
    const sig = gt.swaps[1].signature;
    const get = () => connection.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    expect(await get()).toBeNull();
    expect(await get()).toBeNull();
    expect((await get())?.transaction.signatures[0]).toBe(sig);
  });

  it('fault decisions are deterministic for a seed', async () => {
    const pattern = async () => {
      sim.setFaults('devnet', { rate: 0.5, kinds: ['429', '5xx'], seed: 'pattern' });
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await rawRpc(sim.urls.devnet, { jsonrpc: '2.0', id: i, method: 'getHealth' })).status);
      return out;
    };
    const first = await pattern();
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await pattern()).toEqual(first);
  });
});

describe('live mode', () => {
  it('keeps producing slots in real time, so newer signatures appear', async () => {
    const live = await startSimulator({
      port: 0,
      seed: 'live',
      pools: 2,
      historySeconds: 20,
      slotMs: 50,
      live: true,
      commitmentLags: { confirmed: 1, finalized: 8 },
    });
    try {
      const c = new Connection(live.urls['mainnet-beta'], 'confirmed');
      const slot = await c.getSlot('confirmed');
      const newest = (await c.getSignaturesForAddress(new PublicKey(HADRON_PROGRAM_V1), { limit: 1 }))[0];
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await c.getSlot('confirmed')).toBeGreaterThan(slot + 5);
      expect(await c.getSlot('finalized')).toBeLessThan(await c.getSlot('processed'));
      const newer = await c.getSignaturesForAddress(new PublicKey(HADRON_PROGRAM_V1), { until: newest.signature });
      expect(newer.length).toBeGreaterThan(0);
      expect(live.groundTruth('mainnet-beta').head_slot).toBeGreaterThan(slot);
    } finally {
      await live.stop();
    }
  });
});
