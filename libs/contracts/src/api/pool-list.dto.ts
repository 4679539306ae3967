import { POOL_STATES, type PoolStateName } from '../events/envelope';
import type { Cluster } from './common.dto';

export { POOL_STATES, type PoolStateName };

export const POOL_LIST_DEFAULT_PAGE = 1;
export const POOL_LIST_DEFAULT_PAGE_SIZE = 20;
export const POOL_LIST_MAX_PAGE_SIZE = 100;

export const POOL_SORT_FIELDS = ['tvl', 'volume_24h', 'fees_24h'] as const;
export type PoolSortField = (typeof POOL_SORT_FIELDS)[number];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];
export const POOL_SORTS = POOL_SORT_FIELDS.flatMap((f) => SORT_DIRECTIONS.map((d) => `${f}:${d}` as const));
export type PoolSort = (typeof POOL_SORTS)[number];
export const POOL_LIST_DEFAULT_SORT: PoolSort = 'volume_24h:desc';

/** Filters of `GET /pools` after validation (defaults applied). */
export interface PoolListFilter {
  cluster: Cluster;
  page: number;
  pageSize: number;
  sort: PoolSort;
  /** Trimmed; matched against name and symbols (case-insensitive substring) and mints/address (exact). */
  query?: string;
  authority?: string;
  quotingAuthority?: string;
  token?: string;
  tokenX?: string;
  tokenY?: string;
  /** Compared case-insensitively; an unknown state matches nothing. */
  poolState?: string;
}
