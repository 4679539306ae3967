import {
  createHadronClient,
  readFreshness,
  type Cluster,
  type FeesReport,
  type Freshness,
  type MidpriceHistory,
  type Pool,
  type PoolListQuery,
  type PoolListResponse,
  type VolumeHistory,
} from '@hadron/client';

/** The API that served this page: same origin (the CSP allows no other). */
const client = createHadronClient(window.location.origin);

export const CLUSTERS: readonly Cluster[] = ['mainnet-beta', 'devnet'];
export const TIMEFRAMES = ['1m', '5m', '30m', '1h', '2h', '4h', '12h', '24h'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];
export const FEE_WINDOWS = ['1h', '24h', '7d', '30d', 'all'] as const;
export type FeeWindow = (typeof FEE_WINDOWS)[number];
export const SORT_FIELDS = ['tvl', 'volume_24h', 'fees_24h'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** A response's body and how fresh its data is (the X-Indexed-* headers). */
export interface Loaded<T> {
  data: T;
  freshness: Freshness;
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** A failed call as one readable line: the API's own message when it sent one. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(request: Promise<Result<T>>): Promise<Loaded<T>> {
  let result: Result<T>;
  try {
    result = await request;
  } catch {
    throw new ApiCallError(0, 'Cannot reach the API (network error). Is it running?');
  }
  const { data, error, response } = result;
  if (data === undefined || !response.ok) {
    const message = (error as { message?: unknown } | undefined)?.message;
    throw new ApiCallError(response.status, `The API answered ${response.status}${typeof message === 'string' ? `: ${message}` : ''}`);
  }
  return { data, freshness: readFreshness(response) };
}

export function listPools(query: PoolListQuery): Promise<Loaded<PoolListResponse>> {
  return call(client.GET('/pools', { params: { query } }));
}

/**
 * One pool by address (GET /pools/{address}); undefined when it is not a pool of the cluster (404).
 * Raw vault balances as decimal strings: a u64 above 2^53 would lose digits as a JSON number.
 */
export async function getPool(cluster: Cluster, address: string): Promise<Loaded<Pool | undefined>> {
  const request = client.GET('/pools/{address}', { params: { path: { address }, query: { cluster, raw_amounts: 'string' } } });
  const { response } = await request.catch(() => ({ response: null }));
  if (response?.status === 404) return { data: undefined, freshness: readFreshness(response) };
  return call(request);
}

export function midpriceHistory(cluster: Cluster, address: string, timeframe: Timeframe): Promise<Loaded<MidpriceHistory>> {
  return call(client.GET('/pools/{address}/midprice/history', { params: { path: { address }, query: { cluster, timeframe } } }));
}

export function volumeHistory(cluster: Cluster, address: string): Promise<Loaded<VolumeHistory>> {
  return call(client.GET('/pools/{address}/volume/history', { params: { path: { address }, query: { cluster } } }));
}

export function poolFees(cluster: Cluster, address: string, interval: FeeWindow): Promise<Loaded<FeesReport>> {
  return call(client.GET('/pools/{address}/fees', { params: { path: { address }, query: { cluster, interval } } }));
}

export function isCluster(value: string | null | undefined): value is Cluster {
  return CLUSTERS.includes(value as Cluster);
}
