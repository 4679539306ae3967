import { Query } from '@nestjs/cqrs';
import type { Cluster } from '@hadron/contracts/api';
import type { VolumeHistoryResponseDto } from './get-volume-history.response.dto';

export class GetVolumeHistoryQuery extends Query<VolumeHistoryResponseDto> {
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
