import type { PoolListFilter } from '@hadron/contracts/api';
import { buildSnapshot, listPools, renderPoolListPage, toPoolView, type PoolRow } from './pool-list';

const AS_OF = { slot: 321, time: 1_764_000_000, lag_seconds: 0 };

const Q32 = 4_294_967_296n;

/** A pool row as read.pools returns it; money given in quote units × 10^dy (atoms). */
function row(address: string, over: Partial<PoolRow> & { tvl?: bigint; volume?: bigint; fees?: bigint } = {}): PoolRow {
  const { tvl = 0n, volume = 0n, fees = 0n, ...rest } = over;
  return {
    cluster: 'mainnet-beta',
    address,
    token_x_mint: 'MintSol',
    token_x_symbol: 'SOL',
    token_x_name: 'Wrapped SOL',
    token_x_decimals: 9,
    token_x_icon: '',
    token_y_mint: 'MintUsdc',
    token_y_symbol: 'USDC',
    token_y_name: 'USD Coin',
    token_y_decimals: 6,
    token_y_icon: '',
    token_x_amount: '1000',
    token_y_amount: '2000',
    authority: 'Auth1',
    quoting_authority: 'Quoter1',
    oracle_mode: 0,
    pool_state: 'Initialized',
    midprice_q32: (Q32 * 150n).toString(),
    spread_factor_q32: (Q32 - Q32 / 10_000n).toString(),
    tvl_q32: (tvl * Q32).toString(),
    volume_24h_q32: (volume * Q32).toString(),
    fees_24h_q32: (fees * Q32).toString(),
    ...rest,
  };
}

const filter = (over: Partial<PoolListFilter> = {}): PoolListFilter => ({ cluster: 'mainnet-beta', page: 1, pageSize: 20, sort: 'volume_24h:desc', ...over });
const addresses = (rows: PoolRow[], f: Partial<PoolListFilter>) => listPools(buildSnapshot(rows), filter(f)).data.map((e) => e.address);

describe('pool list (in-memory)', () => {
  const rows = [
    row('P1', { volume: 300n, tvl: 10n, fees: 5n }),
    row('P2', { volume: 100n, tvl: 30n, fees: 5n, token_x_mint: 'MintBonk', token_x_symbol: 'BONK', authority: 'Auth2', pool_state: 'Paused' }),
    row('P3', {
      volume: 200n,
      tvl: 20n,
      fees: 7n,
      token_x_mint: 'MintJup',
      token_x_symbol: 'JUP',
      token_y_mint: 'MintSol',
      token_y_symbol: 'SOL',
      quoting_authority: 'Quoter2',
    }),
    row('P4', { cluster: 'devnet', volume: 999n }),
  ];

  it('defaults: the cluster only, volume_24h descending', () => {
    expect(addresses(rows, {})).toEqual(['P1', 'P3', 'P2']);
    expect(addresses(rows, { cluster: 'devnet' })).toEqual(['P4']);
  });

  it('sorts by every field in both directions, ties by address ascending', () => {
    expect(addresses(rows, { sort: 'tvl:desc' })).toEqual(['P2', 'P3', 'P1']);
    expect(addresses(rows, { sort: 'tvl:asc' })).toEqual(['P1', 'P3', 'P2']);
    expect(addresses(rows, { sort: 'volume_24h:asc' })).toEqual(['P2', 'P3', 'P1']);
    expect(addresses(rows, { sort: 'fees_24h:desc' })).toEqual(['P3', 'P1', 'P2']);
    expect(addresses(rows, { sort: 'fees_24h:asc' })).toEqual(['P1', 'P2', 'P3']);
  });

  it('compares quote values exactly across quote decimals (no float rounding)', () => {
    // 10^17 + 1 vs 10^17 quote units: equal as doubles, different exactly.
    const big = 10n ** 17n;
    const a = row('A', { volume: big * 10n ** 6n });
    const b = row('B', { volume: (big + 1n) * 10n ** 9n, token_y_decimals: 9 });
    expect(addresses([a, b], {})).toEqual(['B', 'A']);
  });

  it('query: name and symbols case-insensitively (substring), mints and addresses exactly', () => {
    expect(addresses(rows, { query: 'sol' })).toEqual(['P1', 'P3']);
    expect(addresses(rows, { query: 'BoNk' })).toEqual(['P2']);
    expect(addresses(rows, { query: 'MintJup' })).toEqual(['P3']);
    expect(addresses(rows, { query: 'mintjup' })).toEqual([]);
    expect(addresses(rows, { query: 'MintJ' })).toEqual([]);
    expect(addresses(rows, { query: 'P2' })).toEqual(['P2']);
  });

  it('exact filters combine with AND', () => {
    expect(addresses(rows, { authority: 'Auth2' })).toEqual(['P2']);
    expect(addresses(rows, { quotingAuthority: 'Quoter2' })).toEqual(['P3']);
    expect(addresses(rows, { token: 'MintSol' })).toEqual(['P1', 'P3']);
    expect(addresses(rows, { tokenX: 'MintSol' })).toEqual(['P1']);
    expect(addresses(rows, { tokenY: 'MintSol' })).toEqual(['P3']);
    expect(addresses(rows, { token: 'MintSol', query: 'jup' })).toEqual(['P3']);
    expect(addresses(rows, { token: 'MintSol', authority: 'Auth2' })).toEqual([]);
  });

  it('pool_state is case-insensitive; an unknown state matches nothing', () => {
    expect(addresses(rows, { poolState: 'paused' })).toEqual(['P2']);
    expect(addresses(rows, { poolState: 'INITIALIZED' })).toEqual(['P1', 'P3']);
    expect(listPools(buildSnapshot(rows), filter({ poolState: 'Frozen' }))).toMatchObject({ total: 0, pages: 0, data: [] });
  });

  it('total and pages describe the filtered set; a page past the end is empty', () => {
    const many = Array.from({ length: 45 }, (_, i) => row(`A${String(i).padStart(2, '0')}`, { volume: BigInt(i), token_x_symbol: `T${i}` }));
    const snap = buildSnapshot(many);
    const p3 = listPools(snap, filter({ page: 3 }));
    expect(p3).toMatchObject({ total: 45, pages: 3, current_page: 3, page_size: 20 });
    expect(p3.data.map((e) => e.address)).toEqual(['A04', 'A03', 'A02', 'A01', 'A00']);
    expect(listPools(snap, filter({ page: 4 }))).toMatchObject({ total: 45, pages: 3, current_page: 4, data: [] });
    const filtered = listPools(snap, filter({ query: 't1', pageSize: 3, page: 2 })); // T1, T10..T19
    expect(filtered).toMatchObject({ total: 11, pages: 4 });
    expect(filtered.data.map((e) => e.address)).toEqual(['A16', 'A15', 'A14']); // after A19, A18, A17
    expect(listPools(snap, filter({ page: Number.MAX_SAFE_INTEGER })).data).toEqual([]);
  });

  it('a token without metadata shows the short mint as symbol and name, the pool name agrees, and query finds it', () => {
    const r = row('P7', {
      token_x_mint: '6zvtWnDUaPF8ReSRDSvXoW5u7NBQ5eK7Nbsw2DStbR3V',
      token_x_symbol: '',
      token_x_name: '',
      token_y_symbol: null,
      token_y_name: null,
    });
    const snap = buildSnapshot([r, row('P8')]);
    const view = JSON.parse(renderPoolListPage(listPools(snap, filter({ query: '6ZVT' })), AS_OF)).data;
    expect(view).toHaveLength(1);
    expect(view[0]).toMatchObject({ address: 'P7', name: '6zvt/Mint', token_x: { symbol: '6zvt', name: '6zvt' }, token_y: { symbol: 'Mint', name: 'Mint' } });
    // A symbol without a name: the name shows the symbol.
    const named = JSON.parse(renderPoolListPage(listPools(buildSnapshot([row('P6', { token_x_symbol: 'ANON', token_x_name: '' })]), filter()), AS_OF)).data[0];
    expect(named).toMatchObject({ name: 'ANON/USDC', token_x: { symbol: 'ANON', name: 'ANON' } });
  });

  it('renders the spec fields with exact integer amounts', () => {
    const r = row('P9', { token_x_amount: '18446744073709551615', tvl: 5n, volume: 3n, fees: 1n });
    const body = renderPoolListPage(listPools(buildSnapshot([r]), filter()), AS_OF);
    expect(body).toContain('"token_x_amount":18446744073709551615');
    expect(JSON.parse(body).as_of).toEqual(AS_OF);
    // raw_amounts=string: the same digits as a string, nothing else changed.
    const strings = renderPoolListPage(listPools(buildSnapshot([r]), filter()), AS_OF, 'string');
    expect(strings).toContain('"token_x_amount":"18446744073709551615"');
    expect(strings.replace('"18446744073709551615"', '18446744073709551615').replace('"token_y_amount":"2000"', '"token_y_amount":2000')).toBe(body);
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({ total: 1, pages: 1, current_page: 1, page_size: 20 });
    expect(parsed.data[0]).toEqual({
      address: 'P9',
      name: 'SOL/USDC',
      token_x: { address: 'MintSol', symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, icon: '' },
      token_y: { address: 'MintUsdc', symbol: 'USDC', name: 'USD Coin', decimals: 6, icon: '' },
      token_x_amount: 18446744073709551615,
      token_y_amount: 2000,
      pool_config: { authority: 'Auth1', quoting_authority: 'Quoter1', oracle_mode: 0, pool_state: 'Initialized', base_spread_bps: expect.closeTo(1, 5) },
      tvl: 0.000005,
      current_price: 150000,
      volume: { '24h': 0.000003 },
      fees: { '24h': 0.000001 },
    });
  });

  it('unknown midprice / spread factor are null, not invented', () => {
    const v = toPoolView(row('P', { midprice_q32: null, spread_factor_q32: null, quoting_authority: null }));
    expect(v.current_price).toBeNull();
    expect(v.pool_config.base_spread_bps).toBeNull();
    expect(v.pool_config.quoting_authority).toBeNull();
  });

  it('a reload reuses the entries of unchanged rows, and the whole snapshot when nothing changed', () => {
    const first = buildSnapshot(rows);
    const same = buildSnapshot(
      rows.map((r) => ({ ...r })),
      first,
    );
    expect(same).toBe(first);
    const next = buildSnapshot(
      rows.map((r) => (r.address === 'P2' ? { ...r, volume_24h_q32: (1000n * Q32).toString() } : { ...r })),
      first,
    );
    expect(next).not.toBe(first);
    expect(next.byAddress.get('mainnet-beta P1')).toBe(first.byAddress.get('mainnet-beta P1'));
    expect(next.byAddress.get('mainnet-beta P2')).not.toBe(first.byAddress.get('mainnet-beta P2'));
    expect(listPools(next, filter()).data.map((e) => e.address)).toEqual(['P2', 'P1', 'P3']);
  });
});
