import { encodeFeeConfigAccount, encodeFeeSplit, encodeOracleAccount, FEE_CONFIG_SIZE, ORACLE_SIZE } from '@hadron/domain';
import { accountVectors, bytesOf, pdaVectors } from '@hadron/domain/hadron/testing/golden-vectors';
import type { SolanaRpc } from '../source/solana-rpc';
import { TokenList } from '../tokens/token-list';
import { accountStateOf, configFingerprint, poolFromConfigAccount, poolSnapshotOf, splitFingerprint } from './pool-accounts';
import { PoolReader } from './pool-reader';
import { metaplexMetadataAddress, tokenMetadataOf } from './token-metadata';

const configCase = accountVectors.cases.find((c) => c.name === 'config_v1_wsol_usdc_seed_12345678901234')!;
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('a pool from its config account', () => {
  it('derives the oracle, vaults and fee configs exactly as pdas.json', () => {
    const pool = poolFromConfigAccount(configCase.owner, configCase.address!, bytesOf(configCase))!;
    const truth = pdaVectors.pools.find((p) => p.config.address === configCase.address)!;
    expect(pool.static).toMatchObject({
      oracle: truth.midprice_oracle.address,
      vaultX: truth.vault_x.address,
      vaultY: truth.vault_y.address,
      poolFeeConfig: truth.pool_fee_config.address,
      seed: truth.seed,
    });
    expect(pool.static.globalFeeConfig).toBe('FoDswiGbeRMEm2dEpLfvJTZaQjjZXFcJzCYyhzxiWcRd');
  });

  it('refuses an account that is not at its own config PDA, or of the wrong size', () => {
    expect(poolFromConfigAccount(configCase.owner, USDC, bytesOf(configCase))).toBeNull();
    expect(poolFromConfigAccount(configCase.owner, configCase.address!, new Uint8Array(247))).toBeNull();
  });

  it('reads config + oracle + fee config into the pool snapshot, and notices what changed', () => {
    const pool = poolFromConfigAccount(configCase.owner, configCase.address!, bytesOf(configCase))!.static;
    const oracle = encodeOracleAccount({
      version: 'v1',
      size: ORACLE_SIZE.v1,
      quoting_authority: USDC,
      sequence: '7',
      midprice_q32: '644245094400',
      spread_factor_q32: '4294537799',
      last_update_slot: '1',
    });
    const fee = { version: 'v1' as const, size: FEE_CONFIG_SIZE.v1, initialized: 1, fee_ppm: 10, bump: 255, admin: USDC, fee_recipient: USDC };
    const accounts = new Map<string, Uint8Array>([
      [pool.config, bytesOf(configCase)],
      [pool.oracle, oracle],
      [pool.globalFeeConfig, encodeFeeConfigAccount(fee)],
    ]);
    const state = accountStateOf(pool, (a) => accounts.get(a) ?? null)!;
    expect(state).toMatchObject({
      state: 1,
      feeConfig: pool.globalFeeConfig,
      fee: { feePpm: 10, split: [] },
      oracle: { quotingAuthority: USDC, midpriceQ32: '644245094400' },
    });
    const tokens = {
      x: { mint: pool.mintX, symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, icon: '' },
      y: { mint: pool.mintY, symbol: 'USDC', name: 'USD Coin', decimals: 6, icon: '' },
    };
    expect(poolSnapshotOf(pool, tokens, state, { midpriceQ32: '1', spreadFactorQ32: null })).toMatchObject({
      programVersion: 1,
      poolState: 'Initialized',
      poolStateRaw: 1,
      feePpm: 10,
      quotingAuthority: USDC,
      midpriceQ32: '1',
    });

    const paused = { ...state, state: 2 };
    expect(configFingerprint(paused)).not.toBe(configFingerprint(state));
    expect(splitFingerprint(paused)).toBe(splitFingerprint(state));
    expect(poolSnapshotOf(pool, tokens, { ...state, state: 9 }, { midpriceQ32: null, spreadFactorQ32: null })).toMatchObject({
      poolState: 'Uninitialized',
      poolStateRaw: 9,
    });
  });

  it('reads a v2 fee config split (the assumed layout lives in libs/domain)', () => {
    const pool = poolFromConfigAccount(configCase.owner, configCase.address!, bytesOf(configCase))!.static;
    const split = [{ recipient: USDC, ppm: 1_000_000 }];
    const v2 = encodeFeeSplit({ version: 'v2', size: FEE_CONFIG_SIZE.v2, initialized: 1, fee_ppm: 25, bump: 254, admin: USDC, fee_recipient: USDC }, split);
    const state = accountStateOf(pool, (a) => (a === pool.config ? bytesOf(configCase) : a === pool.globalFeeConfig ? v2 : null))!;
    expect(state.fee).toEqual({ feePpm: 25, feeRecipient: USDC, split });
    expect(state.oracle).toBeNull();
  });

  it('a v2 fee config whose tail is not a plausible split: fee rate and recipient kept, the split is the default, and why is said', () => {
    const pool = poolFromConfigAccount(configCase.owner, configCase.address!, bytesOf(configCase))!.static;
    const v2 = encodeFeeConfigAccount({ version: 'v2', size: FEE_CONFIG_SIZE.v2, initialized: 1, fee_ppm: 25, bump: 254, admin: USDC, fee_recipient: USDC });
    for (let i = 72; i < v2.length; i++) v2[i] = (i * 73 + 11) & 0xff; // not a split under the assumed layout
    const state = accountStateOf(pool, (a) => (a === pool.config ? bytesOf(configCase) : a === pool.globalFeeConfig ? v2 : null))!;
    expect(state.fee).toEqual({ feePpm: 25, feeRecipient: USDC, split: [], splitUnreadable: expect.any(String) });
    const token = { mint: USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6, icon: '' };
    expect(poolSnapshotOf(pool, { x: token, y: token }, state, { midpriceQ32: null, spreadFactorQ32: null })).toMatchObject({ feePpm: 25, feeRecipient: USDC });
  });

  it('the same split read back from Postgres (JSONB reorders object keys) is no change; another weight is', () => {
    const pool = poolFromConfigAccount(configCase.owner, configCase.address!, bytesOf(configCase))!.static;
    const split = [
      { recipient: USDC, ppm: 600_000 },
      { recipient: configCase.address!, ppm: 400_000 },
    ];
    const v2 = encodeFeeSplit({ version: 'v2', size: FEE_CONFIG_SIZE.v2, initialized: 1, fee_ppm: 25, bump: 254, admin: USDC, fee_recipient: USDC }, split);
    const state = accountStateOf(pool, (a) => (a === pool.config ? bytesOf(configCase) : a === pool.globalFeeConfig ? v2 : null))!;
    const reloaded = JSON.parse(
      JSON.stringify({ ...state, fee: { ...state.fee!, split: state.fee!.split.map((w) => ({ ppm: w.ppm, recipient: w.recipient })) } }),
    );
    expect(JSON.stringify(reloaded.fee.split)).not.toBe(JSON.stringify(state.fee!.split));
    expect(splitFingerprint(reloaded)).toBe(splitFingerprint(state));
    expect(splitFingerprint({ ...state, fee: { ...state.fee!, split: [split[0], { ...split[1], ppm: 399_999 }] } })).not.toBe(splitFingerprint(state));
  });
});

describe('token metadata', () => {
  // Decoding (Metaplex, Token-2022, the interface state) and the resolution order are in
  // token-metadata.spec.ts and ../source/token-accounts.spec.ts, on accounts the field's own
  // serializers build.

  it('derives the metadata PDA of a mint', () => {
    expect(metaplexMetadataAddress(USDC)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
  });

  it('takes the curated list first, Metaplex next, and leaves the icon empty when unknown', () => {
    const list = new TokenList([{ mint: USDC, symbol: 'USDC', name: 'USD Coin', icon: 'https://icon/usdc.png' }]);
    expect(tokenMetadataOf(USDC, 6, { mint: USDC, name: 'Something', symbol: 'X' }, list)).toEqual({
      mint: USDC,
      symbol: 'USDC',
      name: 'USD Coin',
      decimals: 6,
      icon: 'https://icon/usdc.png',
    });
    const other = 'BWkGFo11qcN5GbPDxDc5MMG7KZBj7R6NoirBqQj7DtRR';
    expect(tokenMetadataOf(other, 5, { mint: other, name: 'Bonq Inu', symbol: 'BONQ' }, list)).toEqual({
      mint: other,
      symbol: 'BONQ',
      name: 'Bonq Inu',
      decimals: 5,
      icon: '',
    });
    expect(tokenMetadataOf(other, 6, null, list)).toEqual({ mint: other, symbol: '', name: '', decimals: 6, icon: '' });
  });
});

describe('discovery', () => {
  it('reads config accounts of both sizes on both programs at once, and finds the pools as of the newest read', async () => {
    const asked: string[] = [];
    let inFlight = 0;
    let most = 0;
    const rpc = {
      getProgramAccounts: async (program: string, size: number, minSlot?: number) => {
        asked.push(`${program}:${size}:${minSlot}`);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        const accounts =
          program === configCase.owner && size === bytesOf(configCase).length
            ? [{ pubkey: configCase.address!, account: { owner: configCase.owner, lamports: 1, data: bytesOf(configCase) } }]
            : [];
        return { slot: 100 + asked.length, accounts };
      },
    } as unknown as SolanaRpc;
    const found = await new PoolReader(rpc, new TokenList([])).discover(90);
    expect(asked).toHaveLength(4);
    expect(new Set(asked.map((a) => a.split(':').slice(1).join(':')))).toEqual(new Set(['248:90', '724:90']));
    expect(most).toBe(4);
    expect(found.slot).toBe(104);
    expect(found.pools.map((p) => p.config)).toEqual([configCase.address]);
  });
});
