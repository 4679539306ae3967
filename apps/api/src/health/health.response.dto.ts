import { ApiProperty } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' })
  status: 'ok';
}

class ProjectionStatusDto {
  @ApiProperty({ example: 'projector:swaps' })
  component: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'Events in the log not yet applied' })
  lag: number;
  @ApiProperty({ example: 1.5, description: 'Seconds since the lag was published' })
  age_s: number;
  @ApiProperty({ example: true })
  ok: boolean;
}

class PoolListStatusDto {
  @ApiProperty({ example: true })
  loaded: boolean;
  @ApiProperty({ type: 'integer', example: 1200 })
  pools: number;
  @ApiProperty({ type: 'number', nullable: true, example: 0.4, description: 'Seconds since the last load' })
  age_s: number | null;
}

class ReadinessDetailDto {
  @ApiProperty({ enum: ['ok', 'unreachable'], example: 'ok' })
  database: 'ok' | 'unreachable';
  @ApiProperty({ type: [ProjectionStatusDto] })
  projections: ProjectionStatusDto[];
  @ApiProperty({ type: PoolListStatusDto })
  pool_list: PoolListStatusDto;
  @ApiProperty({ type: [String], example: [], description: 'Why the service is not ready (empty when ready)' })
  reasons: string[];
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'not ready'], example: 'ready' })
  status: 'ready' | 'not ready';
  @ApiProperty({ type: ReadinessDetailDto })
  detail: ReadinessDetailDto;
}
