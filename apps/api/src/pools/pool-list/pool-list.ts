import { CLUSTERS, POOL_SORTS, type Cluster, type PoolListFilter, type PoolSort, type RawAmountFormat } from '@hadron/contracts/api';
import { displayName, displaySymbol, humanPriceDecimal, poolName, q32ToQuoteNumber, spreadBpsDecimal } from '@hadron/domain';
import { intOf } from '../../database/numeric';
import type { AsOfDto } from '../../freshness/as-of.dto';
import { toJson } from '../../http/json';
import type { PoolDto } from '../queries/list-pools/list-pools.response.dto';

/**
 * The pool list is answered from memory (DESIGN §6): every pool of both clusters, each rendered
 * to JSON once per snapshot, pre-sorted in the six orders of `sort_by`. A request is then a
 * scan of at most a few thousand entries (no filter: a slice) and a string concatenation.
 */

/** A row of `read.pools` as pg returns it (numeric and int8 as strings, exact). */
export interface PoolRow {
  cluster: string;
  address: string;
  token_x_mint: string;
  token_x_symbol: string | null;
  token_x_name: string | null;
  token_x_decimals: number;
  token_x_icon: string | null;
  token_y_mint: string;
  token_y_symbol: string | null;
  token_y_name: string | null;
  token_y_decimals: number;
  token_y_icon: string | null;
  token_x_amount: string;
  token_y_amount: string;
  authority: string | null;
  quoting_authority: string | null;
  oracle_mode: number | null;
  pool_state: string | null;
  midprice_q32: string | null;
  spread_factor_q32: string | null;
  tvl_q32: string;
  volume_24h_q32: string;
  fees_24h_q32: string;
}

export interface PoolEntry {
  cluster: Cluster;
  address: string;
  decimalsX: number;
  decimalsY: number;
  mintX: string;
  mintY: string;
  authority: string;
  quotingAuthority: string | null;
  poolStateLower: string;
  nameLower: string;
  symbolXLower: string;
  symbolYLower: string;
  /** Exact sort keys: quote units × 10^30 (comparable across quote decimals)… */
  tvlKey: bigint;
  volumeKey: bigint;
  feesKey: bigint;
  /** …and their doubles: compared first, the exact keys only break double ties. */
  tvlApprox: number;
  volumeApprox: number;
  feesApprox: number;
  view: PoolDto;
  json: string;
  /** `json` with the raw amounts as strings (`raw_amounts=string`), written on first use. */
  jsonStrings?: string;
  /** The row's fields joined: an unchanged row reuses its entry on the next snapshot. */
  signature: string;
}

export interface PoolListSnapshotData {
  readonly pools: number;
  readonly sorted: ReadonlyMap<Cluster, Readonly<Record<PoolSort, readonly PoolEntry[]>>>;
  readonly byAddress: ReadonlyMap<string, PoolEntry>;
}

export interface PoolListPage {
  total: number;
  pages: number;
  current_page: number;
  page_size: number;
  data: readonly PoolEntry[];
}

const KEY_SCALE_DECIMALS = 30;

export function poolKey(cluster: string, address: string): string {
  return `${cluster} ${address}`;
}

/**
 * A token without metadata shows the one fallback (@hadron/domain: the short mint) as its symbol
 * and name, the same the pool name uses, so `query` finds the pool by what the user sees.
 */
export function toPoolView(r: PoolRow): PoolDto {
  const dy = r.token_y_decimals;
  const x = { mint: r.token_x_mint, symbol: r.token_x_symbol };
  const y = { mint: r.token_y_mint, symbol: r.token_y_symbol };
  return {
    address: r.address,
    name: poolName(x, y),
    token_x: {
      address: r.token_x_mint,
      symbol: displaySymbol(x.mint, x.symbol),
      name: displayName(x.mint, r.token_x_name, x.symbol),
      decimals: r.token_x_decimals,
      icon: r.token_x_icon ?? '',
    },
    token_y: {
      address: r.token_y_mint,
      symbol: displaySymbol(y.mint, y.symbol),
      name: displayName(y.mint, r.token_y_name, y.symbol),
      decimals: dy,
      icon: r.token_y_icon ?? '',
    },
    token_x_amount: intOf(r.token_x_amount),
    token_y_amount: intOf(r.token_y_amount),
    pool_config: {
      authority: r.authority ?? '',
      quoting_authority: r.quoting_authority,
      oracle_mode: r.oracle_mode ?? 0,
      pool_state: r.pool_state ?? 'Uninitialized',
      base_spread_bps: r.spread_factor_q32 === null ? null : Number(spreadBpsDecimal(intOf(r.spread_factor_q32))),
    },
    tvl: q32ToQuoteNumber(intOf(r.tvl_q32), dy),
    current_price: r.midprice_q32 === null ? null : Number(humanPriceDecimal(intOf(r.midprice_q32), r.token_x_decimals, dy)),
    volume: { '24h': q32ToQuoteNumber(intOf(r.volume_24h_q32), dy) },
    fees: { '24h': q32ToQuoteNumber(intOf(r.fees_24h_q32), dy) },
  };
}

function sortKey(q32: string, decimalsY: number): bigint {
  return intOf(q32) * 10n ** BigInt(Math.max(0, KEY_SCALE_DECIMALS - decimalsY));
}

export function rowSignature(r: PoolRow): string {
  let sig = '';
  for (const k in r) sig += `${(r as unknown as Record<string, unknown>)[k]}\u0001`;
  return sig;
}

export function toEntry(r: PoolRow, signature = rowSignature(r)): PoolEntry {
  const view = toPoolView(r);
  const tvlKey = sortKey(r.tvl_q32, r.token_y_decimals);
  const volumeKey = sortKey(r.volume_24h_q32, r.token_y_decimals);
  const feesKey = sortKey(r.fees_24h_q32, r.token_y_decimals);
  return {
    cluster: r.cluster as Cluster,
    address: r.address,
    decimalsX: r.token_x_decimals,
    decimalsY: r.token_y_decimals,
    mintX: r.token_x_mint,
    mintY: r.token_y_mint,
    authority: view.pool_config.authority,
    quotingAuthority: r.quoting_authority,
    poolStateLower: view.pool_config.pool_state.toLowerCase(),
    nameLower: view.name.toLowerCase(),
    symbolXLower: view.token_x.symbol.toLowerCase(),
    symbolYLower: view.token_y.symbol.toLowerCase(),
    tvlKey,
    volumeKey,
    feesKey,
    tvlApprox: Number(tvlKey),
    volumeApprox: Number(volumeKey),
    feesApprox: Number(feesKey),
    view,
    json: toJson(view),
    signature,
  };
}

const FIELD_KEY: Record<string, [(e: PoolEntry) => number, (e: PoolEntry) => bigint]> = {
  tvl: [(e) => e.tvlApprox, (e) => e.tvlKey],
  volume_24h: [(e) => e.volumeApprox, (e) => e.volumeKey],
  fees_24h: [(e) => e.feesApprox, (e) => e.feesKey],
};

/** Comparator of `sort`: the field in its direction (exact), then address ascending (stable pages). */
export function comparator(sort: PoolSort): (a: PoolEntry, b: PoolEntry) => number {
  const [field, direction] = sort.split(':');
  const [approx, exact] = FIELD_KEY[field];
  const sign = direction === 'asc' ? 1 : -1;
  return (a, b) => {
    // Number(bigint) is monotonic: different doubles order the exact keys the same way.
    const da = approx(a);
    const db = approx(b);
    if (da !== db) return da < db ? -sign : sign;
    const ka = exact(a);
    const kb = exact(b);
    if (ka !== kb) return ka < kb ? -sign : sign;
    return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
  };
}

/**
 * The snapshot of `rows`. Entries of rows unchanged since `previous` are reused (rendering a pool
 * costs exact decimal conversions and a JSON write; a reload usually changes a few pools).
 */
export function buildSnapshot(rows: readonly PoolRow[], previous?: PoolListSnapshotData): PoolListSnapshotData {
  let changed = previous === undefined || previous.pools !== rows.length;
  const entries = rows.map((r) => {
    const signature = rowSignature(r);
    const old = previous?.byAddress.get(poolKey(r.cluster, r.address));
    if (old && old.signature === signature) return old;
    changed = true;
    return toEntry(r, signature);
  });
  if (!changed && previous) return previous;
  const byAddress = new Map(entries.map((e) => [poolKey(e.cluster, e.address), e]));
  const sorted = new Map<Cluster, Record<PoolSort, PoolEntry[]>>();
  for (const cluster of CLUSTERS) {
    const ofCluster = entries.filter((e) => e.cluster === cluster);
    const before = previous?.sorted.get(cluster);
    const orders = {} as Record<PoolSort, PoolEntry[]>;
    for (const sort of POOL_SORTS) {
      // Start from the previous order: nearly sorted input makes the (Tim)sort close to linear.
      let base = [...ofCluster];
      if (before) {
        const seen = new Set<string>();
        base = [];
        for (const e of before[sort]) {
          const now = byAddress.get(poolKey(e.cluster, e.address));
          if (!now) continue;
          base.push(now);
          seen.add(e.address);
        }
        for (const e of ofCluster) if (!seen.has(e.address)) base.push(e);
      }
      orders[sort] = base.sort(comparator(sort));
    }
    sorted.set(cluster, orders);
  }
  return { pools: entries.length, sorted, byAddress };
}

/** All filters AND-ed (spec rule 1); `query` by name/symbols (case-insensitive substring) or exact mint/address. */
export function poolPredicate(f: PoolListFilter): ((e: PoolEntry) => boolean) | null {
  const tests: Array<(e: PoolEntry) => boolean> = [];
  if (f.authority !== undefined) tests.push((e) => e.authority === f.authority);
  if (f.quotingAuthority !== undefined) tests.push((e) => e.quotingAuthority === f.quotingAuthority);
  if (f.token !== undefined) tests.push((e) => e.mintX === f.token || e.mintY === f.token);
  if (f.tokenX !== undefined) tests.push((e) => e.mintX === f.tokenX);
  if (f.tokenY !== undefined) tests.push((e) => e.mintY === f.tokenY);
  if (f.poolState !== undefined) {
    const state = f.poolState.toLowerCase();
    tests.push((e) => e.poolStateLower === state);
  }
  if (f.query !== undefined) {
    const q = f.query;
    const lower = q.toLowerCase();
    tests.push(
      (e) =>
        e.address === q || e.mintX === q || e.mintY === q || e.nameLower.includes(lower) || e.symbolXLower.includes(lower) || e.symbolYLower.includes(lower),
    );
  }
  if (tests.length === 0) return null;
  return (e) => tests.every((t) => t(e));
}

export function listPools(snapshot: PoolListSnapshotData, f: PoolListFilter): PoolListPage {
  const ordered = snapshot.sorted.get(f.cluster)?.[f.sort] ?? [];
  const from = (f.page - 1) * f.pageSize;
  const to = from + f.pageSize;
  const predicate = poolPredicate(f);
  let total: number;
  let data: PoolEntry[];
  if (predicate === null) {
    total = ordered.length;
    data = ordered.slice(from, to);
  } else {
    total = 0;
    data = [];
    for (const e of ordered) {
      if (!predicate(e)) continue;
      if (total >= from && total < to) data.push(e);
      total++;
    }
  }
  return { total, pages: Math.ceil(total / f.pageSize), current_page: f.page, page_size: f.pageSize, data };
}

/** A pool as JSON, its raw amounts as integers (default) or, with `raw_amounts=string`, as decimal strings. */
export function renderPool(e: PoolEntry, rawAmounts: RawAmountFormat = 'number'): string {
  if (rawAmounts === 'number') return e.json;
  return (e.jsonStrings ??= toJson({ ...e.view, token_x_amount: String(e.view.token_x_amount), token_y_amount: String(e.view.token_y_amount) }));
}

/** The response body: the page's pre-rendered pools joined into the envelope, then `as_of`. */
export function renderPoolListPage(p: PoolListPage, asOf: AsOfDto, rawAmounts: RawAmountFormat = 'number'): string {
  let data = '';
  for (let i = 0; i < p.data.length; i++) data += (i ? ',' : '') + renderPool(p.data[i], rawAmounts);
  return `{"total":${p.total},"pages":${p.pages},"current_page":${p.current_page},"page_size":${p.page_size},"data":[${data}],"as_of":${toJson(asOf)}}`;
}
