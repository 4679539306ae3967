import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MIDPRICE_TIMEFRAMES, type MidpriceTimeframe } from '@hadron/contracts/api';

export class MidpriceSampleDto {
  @ApiProperty({ type: 'integer', example: 1763996400, description: "Sampled: bucket start (epoch-aligned). Raw: the update's block time. Unix seconds" })
  timestamp: number;
  @ApiProperty({ type: 'integer', example: 381245678, description: 'Slot of the midprice update (sampled: the last update in the bucket)' })
  slot: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 0.15025,
    description: 'Q32-decoded midprice, token_y per token_x in raw units; human price = midprice × 10^(decimals_x − decimals_y)',
  })
  midprice: number | null;
  @ApiProperty({ type: 'number', nullable: true, example: 0.9999, description: 'Q32-decoded base spread factor; spread bps = (1 − factor) × 10000' })
  base_spread_factor: number | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
    description: 'Signature of the UpdateMidprice / UpdateMidpriceAndSpreadFactor transaction; null for records from before signature tracking',
  })
  signature: string | null;
}

export class MidpriceHistoryResponseDto {
  @ApiProperty({ type: 'integer', example: 1763913600, description: 'Start of the requested range, Unix seconds' })
  start_time: number;
  @ApiProperty({ type: 'integer', example: 1764000000, description: 'End of the requested range, Unix seconds' })
  end_time: number;
  @ApiProperty({ enum: MIDPRICE_TIMEFRAMES, example: '1h' })
  timeframe: MidpriceTimeframe;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 1763999000,
    description:
      'Only when timeframe is `raw`: the oldest timestamp in this page; pass it as `cursor` for the next (older) page; null when no older record remains in the range',
  })
  next_cursor?: number | null;
  @ApiProperty({ type: [MidpriceSampleDto], description: 'Sampled: one entry per bucket holding data, ascending. Raw: every point of the page, newest first' })
  data: MidpriceSampleDto[];
}
