import { ApiPropertyOptional } from '@nestjs/swagger';
import { DEFAULT_CLUSTER, type Cluster, type RawAmountFormat } from '@hadron/contracts/api';
import { CLUSTER_PARAM_DOC, parseCluster, parseRawAmounts, RAW_AMOUNTS_PARAM_DOC } from '../../../http/common-params';
import { QueryParam } from '../../../http/query-params';

/** `GET /pools/{address}` query parameters (an addition to the spec: one item of the pool list). */
export class GetPoolRequestDto {
  @ApiPropertyOptional(CLUSTER_PARAM_DOC)
  @QueryParam(parseCluster)
  cluster: Cluster = DEFAULT_CLUSTER;

  @ApiPropertyOptional(RAW_AMOUNTS_PARAM_DOC)
  @QueryParam(parseRawAmounts)
  raw_amounts: RawAmountFormat = 'number';
}
