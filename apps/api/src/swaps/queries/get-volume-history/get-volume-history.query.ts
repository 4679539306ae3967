import { Query } from '@nestjs/cqrs';
import type { Cluster } from '@hadron/contracts/api';
import type { JsonText } from '../../../http/json';

export class GetVolumeHistoryQuery extends Query<JsonText> {
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
