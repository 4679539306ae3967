import { CLUSTERS, DEFAULT_CLUSTER, RAW_AMOUNT_FORMATS, type Cluster, type RawAmountFormat } from '@hadron/contracts/api';
import { DEMO_EXAMPLES } from '../openapi/demo-examples';
import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { parseChoice, QueryParam } from './query-params';

export const CLUSTER_MESSAGE = `cluster must be one of: ${CLUSTERS.join(', ')}`;

export const parseCluster = (v: unknown) => parseChoice<Cluster>(v, CLUSTERS, CLUSTER_MESSAGE);

export const CLUSTER_PARAM_DOC = {
  enum: CLUSTERS,
  default: DEFAULT_CLUSTER,
  example: DEFAULT_CLUSTER,
  description: 'Blockchain cluster.',
} as const;

export const ADDRESS_PARAM_DOC = {
  name: 'address',
  description:
    'Pool config PDA address (base58 of 32 bytes; anything else answers 400). An address that is not a pool of the cluster answers 404 `Pool not found`.',
  example: DEMO_EXAMPLES.pool,
} as const;

export const RAW_AMOUNTS_MESSAGE = `raw_amounts must be one of: ${RAW_AMOUNT_FORMATS.join(', ')} (default number)`;

export const parseRawAmounts = (v: unknown) => parseChoice<RawAmountFormat>(v, RAW_AMOUNT_FORMATS, RAW_AMOUNTS_MESSAGE);

export const RAW_AMOUNTS_PARAM_DOC = {
  enum: RAW_AMOUNT_FORMATS,
  default: 'number',
  example: 'string',
  description:
    'How raw atom amounts (`*_amount`, `*_raw`) are written: `number` (default) as JSON numbers with exact digits — they may exceed 2^53, which a JavaScript `JSON.parse` rounds —, or `string` as decimal strings that every client parses exactly.',
} as const;

/** The `cluster` query parameter: documented and parsed the same on every endpoint. */
export const ClusterParam = (): PropertyDecorator => applyDecorators(ApiPropertyOptional(CLUSTER_PARAM_DOC), QueryParam(parseCluster));

/** The `raw_amounts` query parameter (pools, a pool, fees). */
export const RawAmountsParam = (): PropertyDecorator => applyDecorators(ApiPropertyOptional(RAW_AMOUNTS_PARAM_DOC), QueryParam(parseRawAmounts));
