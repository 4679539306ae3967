// The typed client of the Hadron Pool Analytics read API. Runs in Node (>= 18, global fetch) and
// in browsers: no Node-only imports here or in what it imports.
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './openapi';

export type { components, operations, paths } from './openapi';
export { readFreshness, type Freshness } from './freshness';

type Schemas = components['schemas'];
export type Token = Schemas['TokenDto'];
export type PoolConfig = Schemas['PoolConfigDto'];
export type Pool = Schemas['PoolDto'];
export type PoolListResponse = Schemas['PoolListResponseDto'];
/** How fresh a response's data is (`as_of` of the pool list and the fees report; the same as the freshness headers). */
export type AsOf = Schemas['AsOfDto'];
export type FeesReport = Schemas['PoolFeesReportDto'];
export type MidpriceHistory = Schemas['MidpriceHistoryResponseDto'];
export type MidpriceSample = Schemas['MidpriceSampleDto'];
export type VolumeHistory = Schemas['VolumeHistoryResponseDto'];
export type VolumeBucket = Schemas['VolumeBucketDto'];
/** The error body of a 400 (and the shape every error shares). */
export type ApiError = Schemas['ApiErrorDto'];
/** Machine-readable reason of an error (`message` is for people). */
export type ApiErrorCode = ApiError['code'];
export type NotFoundError = Schemas['NotFoundErrorDto'];
export type ServiceUnavailableError = Schemas['ServiceUnavailableErrorDto'];
export type Liveness = Schemas['LivenessDto'];
export type Readiness = Schemas['ReadinessDto'];

/** Query parameters of each endpoint. */
export type PoolListQuery = NonNullable<operations['listPools']['parameters']['query']>;
export type PoolQuery = NonNullable<operations['getPool']['parameters']['query']>;
export type PoolFeesQuery = NonNullable<operations['getPoolFees']['parameters']['query']>;
export type MidpriceHistoryQuery = NonNullable<operations['getMidpriceHistory']['parameters']['query']>;
export type VolumeHistoryQuery = NonNullable<operations['getVolumeHistory']['parameters']['query']>;
export type Cluster = NonNullable<PoolListQuery['cluster']>;

/**
 * A response asked with `raw_amounts: 'string'`: raw atom amounts (`*_amount`, `*_raw`) arrive as
 * decimal strings (exact past 2^53; read them with `BigInt`), e.g.
 * `data as StringAmounts<PoolListResponse>`. The generated types describe the default, JSON integers
 * parsed as numbers; the drift test checks that every int64 field of the document has such a name.
 */
export type StringAmounts<T> = T extends readonly (infer U)[]
  ? StringAmounts<U>[]
  : T extends object
    ? { [K in keyof T]: K extends `${string}_amount` | `${string}_raw` ? (T[K] extends number ? string : T[K]) : StringAmounts<T[K]> }
    : T;

export type HadronClient = Client<paths>;
export type HadronClientOptions = Omit<ClientOptions, 'baseUrl'>;

/**
 * A client of the API at `baseUrl` (e.g. `http://127.0.0.1:3000`). Every call is typed by the
 * committed OpenAPI document: `client.GET('/pools/{address}/fees', { params: { path: { address }, query: { interval: '7d' } } })`
 * resolves to `{ data, error, response }` — `data` typed for 2xx, `error` typed per documented status.
 * `options` go to openapi-fetch (e.g. `fetch`, `headers`, `signal`).
 */
export function createHadronClient(baseUrl: string, options: HadronClientOptions = {}): HadronClient {
  return createClient<paths>({ ...options, baseUrl });
}
