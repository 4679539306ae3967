import { DEFAULT_CLUSTER, type Cluster, type RawAmountFormat } from '@hadron/contracts/api';
import { ClusterParam, RawAmountsParam } from '../../../http/common-params';

/** `GET /pools/{address}` query parameters (an addition to the spec: one item of the pool list). */
export class GetPoolRequestDto {
  @ClusterParam()
  cluster: Cluster = DEFAULT_CLUSTER;

  @RawAmountsParam()
  raw_amounts: RawAmountFormat = 'number';
}
