import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  DEFAULT_CLUSTER,
  POOL_LIST_DEFAULT_PAGE,
  POOL_LIST_DEFAULT_PAGE_SIZE,
  POOL_LIST_DEFAULT_SORT,
  POOL_LIST_MAX_PAGE_SIZE,
  POOL_SORTS,
  POOL_STATES,
  type Cluster,
  type PoolListFilter,
  type PoolSort,
  type RawAmountFormat,
} from '@hadron/contracts/api';
import { ClusterParam, RawAmountsParam } from '../../../http/common-params';
import { parseChoice, parseInteger, parseText, QueryParam } from '../../../http/query-params';
import { DEMO_EXAMPLES } from '../../../openapi/demo-examples';

export const PAGE_MESSAGE = 'page must be an integer >= 1 (default 1)';
export const PAGE_SIZE_MESSAGE = `page_size must be an integer from 1 to ${POOL_LIST_MAX_PAGE_SIZE} (default ${POOL_LIST_DEFAULT_PAGE_SIZE})`;
export const SORT_BY_MESSAGE = `sort_by must be one of: ${POOL_SORTS.join(', ')} (default ${POOL_LIST_DEFAULT_SORT})`;

const text = (name: string) => (v: unknown) => parseText(v, name);
const MINT_EXAMPLE = DEMO_EXAMPLES.mintX;
const AUTHORITY_EXAMPLE = DEMO_EXAMPLES.authority;

/** `GET /pools` query parameters (spec §1). Empty filter values mean "no filter". */
export class ListPoolsRequestDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    default: POOL_LIST_DEFAULT_PAGE,
    example: 1,
    description: '1-based page number. A page after the last returns `data: []` with the correct `total` and `pages`.',
  })
  @QueryParam((v) => parseInteger(v, 1, Number.MAX_SAFE_INTEGER, PAGE_MESSAGE))
  page: number = POOL_LIST_DEFAULT_PAGE;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: POOL_LIST_MAX_PAGE_SIZE,
    default: POOL_LIST_DEFAULT_PAGE_SIZE,
    example: 20,
    description: 'Pools per page.',
  })
  @QueryParam((v) => parseInteger(v, 1, POOL_LIST_MAX_PAGE_SIZE, PAGE_SIZE_MESSAGE))
  page_size: number = POOL_LIST_DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({
    example: 'sol',
    description:
      'Search: case-insensitive substring of the pool name or a token symbol as shown (a token without metadata: the first 4 characters of its mint), or exactly a mint address or the pool address.',
  })
  @QueryParam(text('query'))
  query?: string;

  @ApiPropertyOptional({ example: AUTHORITY_EXAMPLE, description: 'Only pools whose `authority` exactly equals the value.' })
  @QueryParam(text('authority'))
  authority?: string;

  @ApiPropertyOptional({ example: DEMO_EXAMPLES.quotingAuthority, description: 'Only pools whose `quoting_authority` exactly equals the value.' })
  @QueryParam(text('quoting_authority'))
  quoting_authority?: string;

  @ApiPropertyOptional({ example: MINT_EXAMPLE, description: 'Only pools with this mint on either side.' })
  @QueryParam(text('token'))
  token?: string;

  @ApiPropertyOptional({ example: MINT_EXAMPLE, description: 'Only pools whose base token (token_x) mint equals the value.' })
  @QueryParam(text('token_x'))
  token_x?: string;

  @ApiPropertyOptional({ example: DEMO_EXAMPLES.mintY, description: 'Only pools whose quote token (token_y) mint equals the value.' })
  @QueryParam(text('token_y'))
  token_y?: string;

  @ApiPropertyOptional({
    example: 'Initialized',
    description: `Case-insensitive; one of ${POOL_STATES.join(', ')}. Any other value matches no pool (not an error).`,
  })
  @QueryParam(text('pool_state'))
  pool_state?: string;

  @ApiPropertyOptional({
    enum: POOL_SORTS,
    default: POOL_LIST_DEFAULT_SORT,
    example: 'tvl:desc',
    description: '`field:direction`. Ties are broken by pool address, ascending.',
  })
  @QueryParam((v) => parseChoice<PoolSort>(v, POOL_SORTS, SORT_BY_MESSAGE))
  sort_by: PoolSort = POOL_LIST_DEFAULT_SORT;

  @ClusterParam()
  cluster: Cluster = DEFAULT_CLUSTER;

  @RawAmountsParam()
  raw_amounts: RawAmountFormat = 'number';

  toFilter(): PoolListFilter {
    return {
      cluster: this.cluster,
      page: this.page,
      pageSize: this.page_size,
      sort: this.sort_by,
      query: this.query,
      authority: this.authority,
      quotingAuthority: this.quoting_authority,
      token: this.token,
      tokenX: this.token_x,
      tokenY: this.token_y,
      poolState: this.pool_state,
    };
  }
}
