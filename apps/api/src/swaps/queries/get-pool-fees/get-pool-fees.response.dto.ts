import { ApiProperty } from '@nestjs/swagger';
import { FEE_INTERVALS } from '@hadron/contracts/api';
import { AsOfDto } from '../../../freshness/as-of.dto';

export class FeeTotalsDto {
  @ApiProperty({ example: 152340.75, description: 'Swap volume (value of the gross input), quote-token units' })
  volume_usd: number;
  @ApiProperty({ example: 45.7, description: 'Pool-captured spread, quote-token units; excludes the protocol fee; negative on net price improvement' })
  spread_usd: number;
  @ApiProperty({ example: 15.23, description: 'Protocol fee, quote-token units' })
  protocol_fee_usd: number;
  @ApiProperty({ type: 'integer', format: 'int64', example: 50000000, description: 'Protocol fee in raw token-X atoms (from sells). Exact digits, may exceed 2^53 (JavaScript rounds those): `raw_amounts=string` writes a decimal string instead' })
  protocol_fee_x_raw: number;
  @ApiProperty({ type: 'integer', format: 'int64', example: 7500000, description: 'Protocol fee in raw token-Y atoms (from buys). Exact digits, may exceed 2^53: `raw_amounts=string` writes a decimal string instead' })
  protocol_fee_y_raw: number;
  @ApiProperty({ type: 'integer', example: 1234, description: 'Swaps aggregated (all of the window unless `truncated`)' })
  swap_count: number;
}

export class RecipientSplitDto {
  @ApiProperty({ example: '7cVfgArCheMR6Cs4t6vz5rfnqd56vZq4ndaBrY5xkxXy' })
  recipient: string;
  @ApiProperty({ type: 'integer', example: 600000, description: 'Most recently observed weight in the window, parts per million' })
  ppm: number;
  @ApiProperty({ example: 9.138, description: 'Share of the protocol fee, quote-token units' })
  fee_usd: number;
  @ApiProperty({ example: 30000000, description: 'Share in raw token-X atoms (fee × ppm / 10^6: may be fractional); `raw_amounts=string` writes the exact decimal as a string' })
  fee_x_raw: number;
  @ApiProperty({ example: 4500000, description: 'Share in raw token-Y atoms (fee × ppm / 10^6: may be fractional); `raw_amounts=string` writes the exact decimal as a string' })
  fee_y_raw: number;
}

export class PoolFeesReportDto {
  @ApiProperty({ enum: FEE_INTERVALS, example: '24h', description: 'Echoes the request' })
  interval: string;
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
  @ApiProperty({ type: [RecipientSplitDto], description: 'Per-recipient split, largest fee_usd first; empty for default-recipient pools, windows without fee-bearing split swaps, or before split tracking' })
  protocol_fee_split: RecipientSplitDto[];
  @ApiProperty({ example: false, description: 'true when the partial minutes at the window edges held more swaps than FEES_SWAP_CAP: of those, only the newest capped swaps were aggregated' })
  truncated: boolean;
  @ApiProperty({ type: AsOfDto, description: 'How current the report is (an addition to the spec; `end_time` stays the request time)' })
  as_of: AsOfDto;
}
