import { ApiProperty } from '@nestjs/swagger';
import type { VolumeTimeframe } from '@hadron/contracts/api';

export class VolumeBucketDto {
  @ApiProperty({ type: 'integer', example: 1763942400, description: 'UTC midnight starting the day, Unix seconds' })
  timestamp: number;
  @ApiProperty({ example: 98234.5, description: 'Swap volume of the whole UTC day, quote-token units (0 for a day without swaps)' })
  volume: number;
  @ApiProperty({ example: 41.2, description: 'Fees (spread + protocol fee) of the whole UTC day, quote-token units' })
  fees: number;
}

export class VolumeHistoryResponseDto {
  @ApiProperty({ type: 'integer', example: 1763395200, description: 'Start of the requested range, Unix seconds' })
  start_time: number;
  @ApiProperty({ type: 'integer', example: 1764000000, description: 'End of the requested range, Unix seconds' })
  end_time: number;
  @ApiProperty({ enum: ['24h'], example: '24h' })
  timeframe: VolumeTimeframe;
  @ApiProperty({ type: [VolumeBucketDto], description: 'One bucket per UTC day touched by [start_time, end_time], ascending, zero-filled' })
  data: VolumeBucketDto[];
}
