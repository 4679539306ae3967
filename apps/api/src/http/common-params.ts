import { CLUSTERS, DEFAULT_CLUSTER, type Cluster } from '@hadron/contracts/api';
import { parseChoice } from './query-params';

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
  description: 'Pool config PDA address (base58 of 32 bytes; anything else answers 400). An address that is not a pool of the cluster answers 404 `Pool not found`.',
  example: '5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1',
} as const;
