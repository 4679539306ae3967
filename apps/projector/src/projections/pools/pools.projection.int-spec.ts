import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { poolName, shortMint } from '@hadron/domain';
import {
  addr,
  applyBatch,
  dump,
  feeSplitChanged,
  MID_1_5,
  midpriceUpdated,
  MINT_X,
  MINT_Y,
  poolConfigChanged,
  poolDiscovered,
  Q,
  snapshot,
  swapExecuted,
  tokenMetadataChanged,
  vaultBalancesChanged,
} from '../../../test-support/events';
import { projectorMigrations } from '../../migrations';
import { quoteIdent } from '../../sql/identifiers';
import { createServedBuild } from '../../../test-support/served-build';
import { createSwapsHandler } from '../swaps/swaps.projection';
import { swapsSchemaV3 } from '../swaps/swaps.schema';
import { refreshPoolStats24h } from './pool-stats-24h.refresher';
import { createPoolsHandler } from './pools.projection';

const SCHEMA = quoteIdent('proj_pools_v1_initial');
const SPREAD = Q - (1n << 20n); // base spread 2.44140625 bps

describe('pools projection (snapshot per pool)', () => {
  let db: TestDatabase;
  const handler = createPoolsHandler(SCHEMA);
  const apply = (events: Parameters<typeof applyBatch>[2]) => applyBatch(db.pool, handler, events);
  const row = async (pool: string, cluster = 'mainnet-beta') =>
    (await db.pool.query('SELECT * FROM read.pools WHERE cluster = $1 AND address = $2', [cluster, pool])).rows[0];

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
  });
  afterAll(() => db.drop());

  describe('one pool through every event type', () => {
    const P = addr('pools:p1');
    const R1 = addr('pools:r1');
    beforeAll(async () => {
      await apply([
        poolDiscovered({ pool: P, slot: 100 }, { midpriceQ32: MID_1_5.toString(), spreadFactorQ32: SPREAD.toString() }),
        vaultBalancesChanged({ pool: P, slot: 110, txIndex: 2 }, 5000n, 6000n),
        swapExecuted(
          { pool: P, slot: 120, txIndex: 0 },
          { side: 'buy', amountIn: 10n, fee: 0n, amountOut: 1n, mid: MID_1_5, vaultXAfter: 7000n, vaultYAfter: 8000n },
        ),
        vaultBalancesChanged({ pool: P, slot: 115, txIndex: 9 }, 1n, 1n), // older than the swap: ignored
      ]);
      await apply([
        vaultBalancesChanged({ pool: P, slot: 119, txIndex: 0 }, 2n, 2n), // older, in a later batch: ignored
        midpriceUpdated({ pool: P, slot: 130 }, 2n * Q, null), // tag 5: the spread is left as it was
        poolConfigChanged({ pool: P, slot: 140 }, { poolState: 'Paused', poolStateRaw: 2, midpriceQ32: null, spreadFactorQ32: null }),
      ]);
      await apply([
        // An older config snapshot arriving late: its config is ignored (its oracle read agrees with the update at 130).
        poolConfigChanged(
          { pool: P, slot: 135 },
          { poolState: 'RejectSwaps', poolStateRaw: 3, midpriceQ32: (2n * Q).toString(), spreadFactorQ32: SPREAD.toString() },
        ),
        feeSplitChanged({ pool: P, slot: 150 }, [{ recipient: R1, ppm: 1_000_000 }], 25),
      ]);
    });

    it('serves the latest value of every field by chain position, whatever the arrival order', async () => {
      const r = await row(P);
      expect(r).toMatchObject({
        name: 'SOL/USDC',
        token_x_mint: addr('mint-x'),
        token_x_decimals: 9,
        token_y_symbol: 'USDC',
        token_x_amount: '7000',
        token_y_amount: '8000',
        authority: addr('authority'),
        quoting_authority: addr('quoter'),
        oracle_mode: 0,
        pool_state: 'Paused',
        pool_state_raw: 2,
        midprice_q32: (2n * Q).toString(),
        spread_factor_q32: SPREAD.toString(),
        tvl_q32: ((7000n * 2n + 8000n) * Q).toString(),
        fee_split: [{ recipient: R1, ppm: 1_000_000 }],
        config_slot: '140',
      });
      expect(Number(r.current_price)).toBe(2000); // 2 quote atoms per base atom × 10^(9 − 6)
      expect(Number(r.base_spread_bps)).toBe(2.44140625);
      expect(Number(r.tvl)).toBe(0.022); // (7000 × 2 + 8000) / 10^6
      expect([r.volume_24h, r.fees_24h, r.stats_24h_window_end]).toEqual(['0', '0', null]);
    });

    it('changes nothing when the same batches are delivered again', async () => {
      const before = await dump(db.pool, `${SCHEMA}.pools`, 'cluster, pool');
      await apply([
        vaultBalancesChanged({ pool: P, slot: 110, txIndex: 2 }, 5000n, 6000n),
        poolConfigChanged({ pool: P, slot: 140 }, { poolState: 'Paused', poolStateRaw: 2, midpriceQ32: null, spreadFactorQ32: null }),
      ]);
      expect(await dump(db.pool, `${SCHEMA}.pools`, 'cluster, pool')).toEqual(before);
    });
  });

  it('keeps facts that arrive before the pool is discovered, and lists the pool once it is', async () => {
    const P = addr('pools:early');
    await apply([vaultBalancesChanged({ pool: P, slot: 10 }, 11n, 22n), midpriceUpdated({ pool: P, slot: 11 }, 3n * Q, SPREAD)]);
    expect(await row(P)).toBeUndefined();
    await apply([poolDiscovered({ pool: P, slot: 5 }, { midpriceQ32: MID_1_5.toString() })]); // snapshot older than the update
    expect(await row(P)).toMatchObject({ token_x_amount: '11', token_y_amount: '22', midprice_q32: (3n * Q).toString() });
  });

  describe('token renames (TokenMetadataChanged)', () => {
    const blank = (mint: string) => ({ mint, symbol: '', name: '', decimals: 6, icon: '' });
    const tokens = async (pool: string) => {
      const r = await row(pool);
      return { name: r.name, x: [r.token_x_symbol, r.token_x_name, r.token_x_icon], y: [r.token_y_symbol, r.token_y_name, r.token_y_icon] };
    };

    it('names a token on the side that holds its mint, and the pool name follows', async () => {
      const P = addr('pools:rename-x');
      await apply([poolDiscovered({ pool: P, slot: 10 }, { tokenX: blank(MINT_X) })]);
      expect((await tokens(P)).name).toBe(`${shortMint(MINT_X)}/USDC`);
      await apply([tokenMetadataChanged({ pool: P, slot: 12 }, { mint: MINT_X, symbol: 'BONQ', name: 'Bonq Inu', icon: 'https://i/bonq.png' })]);
      expect(await tokens(P)).toEqual({ name: 'BONQ/USDC', x: ['BONQ', 'Bonq Inu', 'https://i/bonq.png'], y: ['USDC', 'USD Coin', ''] });
      await apply([tokenMetadataChanged({ pool: P, slot: 13 }, { mint: MINT_Y, symbol: 'USDC2', name: 'USD Coin (new)' })]);
      expect(await tokens(P)).toEqual({ name: 'BONQ/USDC2', x: ['BONQ', 'Bonq Inu', 'https://i/bonq.png'], y: ['USDC2', 'USD Coin (new)', ''] });
    });

    it('a rename read at a lower slot than the last snapshot still wins: the log order decides', async () => {
      const P = addr('pools:rename-order');
      await apply([poolDiscovered({ pool: P, slot: 10 }, { tokenX: blank(MINT_X) }), poolConfigChanged({ pool: P, slot: 50 }, { tokenX: blank(MINT_X) })]);
      await apply([tokenMetadataChanged({ pool: P, slot: 20 }, { mint: MINT_X, symbol: 'HDRN', name: 'Hadron' })]);
      expect((await tokens(P)).x).toEqual(['HDRN', 'Hadron', '']);
      // The same batch: snapshot (old names) then rename, and rename then snapshot (new names).
      await apply([
        poolConfigChanged({ pool: P, slot: 60 }, { tokenX: { ...blank(MINT_X), symbol: 'HDRN', name: 'Hadron' } }),
        tokenMetadataChanged({ pool: P, slot: 61 }, { mint: MINT_X, symbol: 'HDRN2', name: 'Hadron Two' }),
      ]);
      expect((await tokens(P)).x).toEqual(['HDRN2', 'Hadron Two', '']);
      await apply([
        tokenMetadataChanged({ pool: P, slot: 70 }, { mint: MINT_X, symbol: 'HDRN3', name: 'Hadron Three' }),
        poolConfigChanged({ pool: P, slot: 71 }, { tokenX: { ...blank(MINT_X), symbol: 'HDRN3', name: 'Hadron Three' } }),
      ]);
      expect((await tokens(P)).x).toEqual(['HDRN3', 'Hadron Three', '']);
      // Two renames of one mint in a batch: the later one.
      await apply([
        tokenMetadataChanged({ pool: P, slot: 80 }, { mint: MINT_X, symbol: 'A', name: 'A' }),
        tokenMetadataChanged({ pool: P, slot: 79 }, { mint: MINT_X, symbol: 'B', name: 'B' }),
      ]);
      expect((await tokens(P)).x).toEqual(['B', 'B', '']);
    });

    it('touches no other pool, no other mint, and changes nothing when delivered again', async () => {
      const P = addr('pools:rename-scope');
      const Q2 = addr('pools:rename-other');
      await apply([poolDiscovered({ pool: P, slot: 10 }), poolDiscovered({ pool: Q2, slot: 10 })]);
      const rename = [
        tokenMetadataChanged({ pool: P, slot: 11 }, { mint: MINT_X, symbol: 'NEW', name: 'New name' }),
        tokenMetadataChanged({ pool: P, slot: 11 }, { mint: addr('not-in-pool'), symbol: 'ZZZ', name: 'Z' }),
      ];
      await apply(rename);
      expect((await tokens(Q2)).x).toEqual(['SOL', 'Wrapped SOL', 'https://icons/sol.png']);
      expect(await tokens(P)).toEqual({ name: 'NEW/USDC', x: ['NEW', 'New name', ''], y: ['USDC', 'USD Coin', ''] });
      const before = await dump(db.pool, `${SCHEMA}.pools`, 'cluster, pool');
      await apply(rename);
      expect(await dump(db.pool, `${SCHEMA}.pools`, 'cluster, pool')).toEqual(before);
    });

    it('read.pools names a token without metadata exactly as @hadron/domain poolName does (the one fallback)', async () => {
      const P = addr('pools:fallback');
      const t = snapshot({ tokenX: blank(MINT_X), tokenY: blank(MINT_Y) });
      await apply([poolDiscovered({ pool: P, slot: 10 }, { tokenX: t.tokenX, tokenY: t.tokenY })]);
      expect((await tokens(P)).name).toBe(poolName(t.tokenX, t.tokenY));
    });
  });

  it('keeps the clusters apart', async () => {
    const P = addr('pools:clusters');
    await apply([
      poolDiscovered({ pool: P, slot: 1 }, { poolState: 'Initialized' }),
      poolDiscovered({ cluster: 'devnet', pool: P, slot: 1 }, { poolState: 'Closed', poolStateRaw: 4 }),
      vaultBalancesChanged({ cluster: 'devnet', pool: P, slot: 2 }, 9n, 9n),
    ]);
    expect(await row(P, 'mainnet-beta')).toMatchObject({ pool_state: 'Initialized', token_x_amount: '0' });
    expect(await row(P, 'devnet')).toMatchObject({ pool_state: 'Closed', token_x_amount: '9' });
  });

  describe('24 h volume and fees', () => {
    const P = addr('pools:24h');
    const NOW = 1_763_798_400 + 5 * 3600 + 1234; // 20 min 34 s into an hour
    const START = NOW - 86_400;
    const swapAt = (ts: number, amountIn: bigint, slot: number) =>
      swapExecuted({ pool: P, slot, blockTime: ts }, { side: 'buy', amountIn, fee: 0n, amountOut: 0n, mid: MID_1_5 }); // fees = spread = amountIn
    beforeAll(async () => {
      await apply([poolDiscovered({ pool: P, slot: 1 })]);
      await applyBatch(db.pool, createSwapsHandler(await createServedBuild(db.pool, swapsSchemaV3, 'proj_swaps_v3_test')), [
        swapAt(START - 1, 1n, 2), // just outside the window
        swapAt(START, 10n, 3), // window start, in the leading partial minute (raw swaps)
        swapAt(START + 20, 100n, 4), // leading partial minute
        swapAt(START + 26 + 60, 1000n, 5), // whole minutes of the leading partial hour
        swapAt(1_763_798_400 + 3600, 10_000n, 6), // a whole hour
        swapAt(NOW, 100_000n, 7), // now, in the current hour
      ]);
    });
    // Each test starts without 24 h stats and leaves none: a refresh never goes back in time, so
    // one test's later `now` would otherwise decide another's result (and the other tests expect none).
    afterEach(async () => {
      await db.pool.query(`DELETE FROM ${SCHEMA}.pool_stats_24h`);
    });

    it('sums [now − 24 h, now] exactly from hourly and minute rollups plus the partial minute of raw swaps', async () => {
      await refreshPoolStats24h(db.pool as never, SCHEMA, NOW);
      const r = await row(P);
      expect([r.volume_24h_q32, r.fees_24h_q32, r.swap_count_24h, r.stats_24h_window_end]).toEqual([
        (111_110n * Q).toString(),
        (111_110n * Q).toString(),
        '5',
        String(NOW),
      ]);
      expect(Number(r.volume_24h)).toBe(0.11111); // quote decimals 6
    });

    it('lets swaps age out of the window', async () => {
      await refreshPoolStats24h(db.pool as never, SCHEMA, NOW);
      await refreshPoolStats24h(db.pool as never, SCHEMA, NOW + 3 * 86_400);
      expect(await row(P)).toMatchObject({ volume_24h_q32: '0', fees_24h_q32: '0', swap_count_24h: '0' });
    });

    it('never lets a refresh computed for an earlier now (a slower one finishing late) overwrite a newer one', async () => {
      await refreshPoolStats24h(db.pool as never, SCHEMA, NOW);
      await refreshPoolStats24h(db.pool as never, SCHEMA, NOW + 3 * 86_400); // the swaps aged out
      await refreshPoolStats24h(db.pool as never, SCHEMA, NOW); // late
      expect(await row(P)).toMatchObject({ volume_24h_q32: '0', swap_count_24h: '0', stats_24h_window_end: String(NOW + 3 * 86_400) });
    });
  });
});
