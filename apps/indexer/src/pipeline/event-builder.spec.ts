import { parseHadronEvent, type HadronEvent } from '@hadron/contracts';
import { globalFeeConfigAddress } from '@hadron/domain';
import { pdaVectors } from '@hadron/domain/hadron/testing/golden-vectors';
import { decodeTransaction, type OracleUpdateFact, type SwapFact } from '../decode';
import { factFromVector, fixtureContext, vectorCase } from '../decode/testing/swap-transaction-vectors';
import type { AccountState } from '../discovery/pool-accounts';
import { DECODER_VERSION, EventBuilder, type TxPosition } from './event-builder';
import { UNKNOWN_STATE, type PoolRecord } from './pool-state';

/** The golden transactions through decoder + event builder: v1 events, state in effect carried between them. */

const ctx = fixtureContext();
const WSOL = { mint: 'So11111111111111111111111111111111111111112', symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, icon: '' };
const USDC = { mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', symbol: 'USDC', name: 'USD Coin', decimals: 6, icon: '' };

function records(): Map<string, PoolRecord> {
  const out = new Map<string, PoolRecord>();
  for (const p of pdaVectors.pools) {
    const published: AccountState = {
      state: 1,
      authority: p.config.address,
      oracleMode: 0,
      spreadConfigInitialized: false,
      hasPoolFee: false,
      feeConfig: globalFeeConfigAddress(p.program).address,
      fee: null,
      oracle: null,
    };
    out.set(p.config.address, {
      static: {
        config: p.config.address,
        programId: p.program,
        version: p.program_version,
        seed: p.seed,
        mintX: p.mint_x,
        mintY: p.mint_y,
        tokenProgramX: p.vault_x.token_program,
        tokenProgramY: p.vault_y.token_program,
        vaultX: p.vault_x.address,
        vaultY: p.vault_y.address,
        oracle: p.midprice_oracle.address,
        poolFeeConfig: p.pool_fee_config.address,
        globalFeeConfig: published.feeConfig,
      },
      tokens: { x: WSOL, y: USDC },
      tracked: { ...UNKNOWN_STATE },
      published,
      discoveredSlot: 0,
    });
  }
  return out;
}

function run(pools: Map<string, PoolRecord>, name: string, txIndex: number | null = 3) {
  const result = vectorCase(name).result;
  const pos: TxPosition = { signature: result.transaction.signatures[0], slot: result.slot, blockTime: result.blockTime ?? null, txIndex };
  return new EventBuilder('mainnet-beta', pools).transaction(decodeTransaction(result, ctx), pos);
}

/** The first expected event of a golden transaction, as the decoder's fact. */
const swapOf = (name: string) => factFromVector(vectorCase(name).expected.events[0]) as SwapFact;
const oracleUpdateOf = (name: string) => factFromVector(vectorCase(name).expected.events[0]) as OracleUpdateFact;

const valid = (events: HadronEvent[]) => events.forEach((e) => expect(parseHadronEvent(JSON.stringify(e))).toEqual({ ok: true, event: e }));

describe('events from decoded transactions', () => {
  it('given a swap, then SwapExecuted carries the amounts, decimals, vault balances after and the envelope', () => {
    const { events, problems } = run(records(), 'a_v1_sell_x_legacy_with_spread_config');
    const expected = swapOf('a_v1_sell_x_legacy_with_spread_config');
    expect(problems).toEqual([]);
    valid(events);
    const swap = events.find((e) => e.type === 'SwapExecuted')!;
    expect(swap).toMatchObject({
      id: expected.eventId,
      cluster: 'mainnet-beta',
      pool: expected.poolConfig,
      txIndex: 3,
      ixIndex: expected.instructionLocation.topLevelIndex,
      innerIndex: null,
      decoderVersion: DECODER_VERSION,
      data: {
        side: 'sell',
        amountIn: expected.amountIn,
        amountInToVault: expected.amountInToVault,
        amountOut: expected.amountOut,
        feeRaw: expected.protocolFeeRaw,
        feeMint: expected.protocolFeeMint,
        decimalsX: 9,
        decimalsY: 6,
        vaultXAfter: expected.vaultXAfter,
        vaultYAfter: expected.vaultYAfter,
        midpriceQ32: null, // nothing known yet
        feeSplit: null,
      },
    });
    // Then the transaction's vault balances, as a tx-level fact.
    expect(events[events.length - 1]).toMatchObject({
      type: 'VaultBalancesChanged',
      id: `${swap.signature}:vaults:${swap.pool}`,
      ixIndex: null,
      data: { amountX: expected.vaultXAfter, amountY: expected.vaultYAfter },
    });
  });

  it('given an oracle update then a swap on its pool, then the swap carries the midprice and spread in effect', () => {
    const pools = records();
    const update = run(pools, 'd_v2_update_midprice_and_base_spread');
    valid(update.events);
    const u = update.events[0];
    expect(u.type).toBe('MidpriceUpdated');
    const swap = run(pools, 'b_v2_buy_x_v0_lookup_table').events.find((e) => e.type === 'SwapExecuted')!;
    expect(swap.pool).toBe(u.pool);
    expect(u.type === 'MidpriceUpdated' && swap.type === 'SwapExecuted' && [swap.data.midpriceQ32, swap.data.spreadFactorQ32]).toEqual(
      u.type === 'MidpriceUpdated' ? [u.data.midpriceQ32, u.data.spreadFactorQ32] : [],
    );
  });

  it('a tag-5 update keeps the spread in effect; tag 5 events carry a null spread', () => {
    const pools = records();
    const pool = [...pools.values()].find((p) => p.static.oracle === oracleUpdateOf('e_v1_update_midprice_only').oracle)!;
    pool.tracked.spreadFactorQ32 = '4294537799';
    const { events } = run(pools, 'e_v1_update_midprice_only');
    expect(events[0].type === 'MidpriceUpdated' && events[0].data.spreadFactorQ32).toBeNull();
    expect(pool.tracked.spreadFactorQ32).toBe('4294537799');
    // …while the oracle's values after the update are complete: the new midprice, the spread kept.
    expect(events[0].type === 'MidpriceUpdated' && [events[0].data.midpriceAfterQ32, events[0].data.spreadFactorAfterQ32]).toEqual([
      oracleUpdateOf('e_v1_update_midprice_only').midpriceQ32,
      '4294537799',
    ]);
    valid(events);
    expect(pool.tracked.midpriceQ32).toBe(oracleUpdateOf('e_v1_update_midprice_only').midpriceQ32);
  });

  it('an update setting one field while the other is not known yet: the unknown one is null after it', () => {
    const pools = records();
    const { events } = run(pools, 'e_v1_update_midprice_only');
    expect(events[0].type === 'MidpriceUpdated' && [events[0].data.midpriceAfterQ32, events[0].data.spreadFactorAfterQ32]).toEqual([
      oracleUpdateOf('e_v1_update_midprice_only').midpriceQ32,
      null,
    ]);
    valid(events);
  });

  it('carries the fee split in effect: null for the default recipient ([]) or when not tracked', () => {
    const pools = records();
    const config = swapOf('a_v1_sell_x_legacy_with_spread_config').poolConfig;
    const split = [
      { recipient: 'DvyDh6XMdHREn2xKJtRLpnf9HGPnrpSQK6EYjt8FyDB8', ppm: 600_000 },
      { recipient: '7NCJevSNj93C9TpXb3FiJqSqzjfWeJ3rUCwGFAMjiYoS', ppm: 400_000 },
    ];
    for (const [tracked, want] of [
      [null, null],
      [[], null],
      [split, split],
    ] as const) {
      pools.get(config)!.tracked.split = tracked === null ? null : [...tracked];
      const swap = run(pools, 'a_v1_sell_x_legacy_with_spread_config').events.find((e) => e.type === 'SwapExecuted')!;
      expect(swap.type === 'SwapExecuted' && swap.data.feeSplit).toEqual(want);
    }
  });

  it('a swap via CPI gets its inner index; a failed swap gives nothing', () => {
    const cpi = run(records(), 'f_v2_sell_x_via_cpi').events.find((e) => e.type === 'SwapExecuted')!;
    expect([cpi.ixIndex, cpi.innerIndex]).toEqual([2, 0]);
    expect(run(records(), 'c_v1_failed_swap_slippage')).toEqual({ events: [], problems: [] });
  });

  it('an oracle update of no known pool is a recorded problem, not an event', () => {
    const pools = records();
    const oracle = oracleUpdateOf('d_v2_update_midprice_and_base_spread').oracle;
    for (const [k, p] of pools) if (p.static.oracle === oracle) pools.delete(k);
    const { events, problems } = run(pools, 'd_v2_update_midprice_and_base_spread');
    expect(events).toEqual([]);
    expect(problems.map((p) => p.code)).toEqual(['unknown_pool']);
  });
});
