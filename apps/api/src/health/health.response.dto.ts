import { ApiProperty } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';
}

export class ProjectionStatusDto {
  @ApiProperty({ example: 'projector:swaps' })
  component: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'Events in the log not yet applied' })
  lag: number;
  @ApiProperty({ example: 1.5, description: 'Seconds since the lag was published' })
  age_s: number;
  @ApiProperty({ example: true })
  ok: boolean;
}

export class ClusterFreshnessDto {
  @ApiProperty({ example: 'mainnet-beta' })
  cluster: string;
  @ApiProperty({ example: true, description: "The cluster's active indexer says it is ready (backfilled, near the head, RPC answering, no gap)" })
  ready: boolean;
  @ApiProperty({ example: true })
  backfill_done: boolean;
  @ApiProperty({ type: 'integer', nullable: true, example: 385012345, description: 'Every transaction up to this slot is indexed' })
  indexed_slot: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 1764067200, description: 'Block time (unix s) of the newest indexed transaction' })
  indexed_time: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 385012346, description: 'Newest slot the indexer has seen at its commitment' })
  head_slot: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 1 })
  lag_slots: number | null;
  @ApiProperty({ type: 'number', nullable: true, example: 0, description: 'How old the newest indexed data is while behind the head; 0 at the head' })
  lag_seconds: number | null;
  @ApiProperty({ type: 'number', example: 0, description: 'How long the RPC has given no good answer; 0 when healthy' })
  rpc_failing_seconds: number;
  @ApiProperty({ example: 1.2, description: 'Seconds since the indexer published this' })
  age_s: number;
}

export class PoolListStatusDto {
  @ApiProperty({ example: true })
  loaded: boolean;
  @ApiProperty({ type: 'integer', example: 1200 })
  pools: number;
  @ApiProperty({ type: 'number', nullable: true, example: 0.4, description: 'Seconds since the last load' })
  age_s: number | null;
}

export class ReplicaStatusDto {
  @ApiProperty({ type: String, nullable: true, example: '0/3A2B1C8', description: 'WAL replayed up to here: what the API reads' })
  replay_lsn: string | null;
  @ApiProperty({ type: String, nullable: true, example: '0/3A2B1C8', description: 'WAL received from the primary up to here' })
  receive_lsn: string | null;
  @ApiProperty({ example: 0, description: 'Seconds the replayed data is behind the primary; 0 when nothing received is left to replay' })
  replay_lag_s: number;
  @ApiProperty({ example: false, description: 'Replay is paused (pg_wal_replay_pause)' })
  paused: boolean;
}

export class ReadinessDetailDto {
  @ApiProperty({ enum: ['ok', 'unreachable'], example: 'ok' })
  database: 'ok' | 'unreachable';
  @ApiProperty({
    type: ReplicaStatusDto,
    nullable: true,
    description: 'The read replica the API reads (DATABASE_READ_URL): its replay position and lag; null when the API reads a primary',
  })
  replica: ReplicaStatusDto | null;
  @ApiProperty({ type: [ClusterFreshnessDto], description: 'Per indexed cluster: how fresh the data is' })
  clusters: ClusterFreshnessDto[];
  @ApiProperty({ type: [ProjectionStatusDto] })
  projections: ProjectionStatusDto[];
  @ApiProperty({ type: PoolListStatusDto })
  pool_list: PoolListStatusDto;
  @ApiProperty({ type: [String], example: [], description: 'Why the service is not ready (empty when ready); `shutting down` while it drains after SIGTERM' })
  reasons: string[];
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'not ready'], example: 'ready' })
  status: 'ready' | 'not ready';
  @ApiProperty({
    type: ReadinessDetailDto,
    required: false,
    description: 'Absent on the API port when API_OPS_PORT is set: the details are then served on the ops port only',
  })
  detail?: ReadinessDetailDto;
}
