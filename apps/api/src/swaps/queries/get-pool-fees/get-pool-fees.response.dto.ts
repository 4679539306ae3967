import { ApiProperty } from '@nestjs/swagger';
import { FEE_INTERVALS, type FeeInterval, type RawAmount } from '@hadron/contracts/api';
import { AsOfDto } from '../../../freshness/as-of.dto';
import { DEMO_EXAMPLES } from '../../../openapi/demo-examples';

export class FeeTotalsDto {
  @ApiProperty({ example: 1463535.054547096, description: 'Swap volume (value of the gross input), quote-token units' })
  volume_usd: number;
  @ApiProperty({
    example: 1125.5773931678177,
    description: 'Pool-captured spread, quote-token units; excludes the protocol fee; negative on net price improvement',
  })
  spread_usd: number;
  @ApiProperty({ example: 59.01820309533589, description: 'Protocol fee, quote-token units' })
  protocol_fee_usd: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: 210421931,
    description:
      'Protocol fee in raw token-X atoms (from sells). Exact digits, may exceed 2^53 (JavaScript rounds those): `raw_amounts=string` writes a decimal string instead',
  })
  protocol_fee_x_raw: RawAmount;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: 27259925,
    description: 'Protocol fee in raw token-Y atoms (from buys). Exact digits, may exceed 2^53: `raw_amounts=string` writes a decimal string instead',
  })
  protocol_fee_y_raw: RawAmount;
  @ApiProperty({ type: 'integer', example: 632, description: 'Swaps aggregated (all of the window unless `truncated`)' })
  swap_count: number;
}

export class RecipientSplitDto {
  @ApiProperty({ example: DEMO_EXAMPLES.recipient })
  recipient: string;
  @ApiProperty({ type: 'integer', example: 954266, description: 'Most recently observed weight in the window, parts per million' })
  ppm: number;
  @ApiProperty({ example: 0.772305685078044, description: 'Share of the protocol fee, quote-token units' })
  fee_usd: number;
  @ApiProperty({
    type: 'number',
    example: 1539098.415026,
    description: 'Share in raw token-X atoms (fee × ppm / 10^6: may be fractional); `raw_amounts=string` writes the exact decimal as a string',
  })
  fee_x_raw: number | string;
  @ApiProperty({
    type: 'number',
    example: 538763.315344,
    description: 'Share in raw token-Y atoms (fee × ppm / 10^6: may be fractional); `raw_amounts=string` writes the exact decimal as a string',
  })
  fee_y_raw: number | string;
}

export class PoolFeesReportDto {
  @ApiProperty({ enum: FEE_INTERVALS, example: '24h', description: 'Echoes the request' })
  interval: FeeInterval;
  @ApiProperty({ type: 'integer', example: 1763913600, description: 'Window start (inclusive), Unix seconds; 0 for `all`' })
  start_time: number;
  @ApiProperty({ type: 'integer', example: 1764000000, description: 'Window end (inclusive) = request time, Unix seconds' })
  end_time: number;
  @ApiProperty({ type: 'string', nullable: true, example: 'So11111111111111111111111111111111111111112' })
  mint_x: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' })
  mint_y: string | null;
  @ApiProperty({ type: FeeTotalsDto })
  totals: FeeTotalsDto;
  @ApiProperty({
    type: [RecipientSplitDto],
    description:
      'Per-recipient split, largest fee_usd first; empty for default-recipient pools, windows without fee-bearing split swaps, or before split tracking',
  })
  protocol_fee_split: RecipientSplitDto[];
  @ApiProperty({
    example: false,
    description:
      'true when the per-query swap cap was reached. Every window is answered exactly from running totals, so the cap is never reached and this is always false',
  })
  truncated: boolean;
  @ApiProperty({ type: AsOfDto, description: 'How current the report is (an addition to the spec; `end_time` stays the request time)' })
  as_of: AsOfDto;
}
