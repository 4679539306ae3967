import { Query } from '@nestjs/cqrs';
import type { Cluster, VolumeHistoryResponse } from '@hadron/contracts/api';

export class GetVolumeHistoryQuery extends Query<VolumeHistoryResponse> {
  constructor(
    readonly cluster: Cluster,
    readonly address: string,
    /** Inclusive Unix seconds, start <= end. */
    readonly startTime: number,
    readonly endTime: number,
  ) {
    super();
  }
}
