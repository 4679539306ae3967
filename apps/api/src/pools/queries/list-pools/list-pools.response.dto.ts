import { ApiProperty } from '@nestjs/swagger';
import type { RawAmount } from '@hadron/contracts/api';
import { AsOfDto } from '../../../freshness/as-of.dto';
import { DEMO_EXAMPLES } from '../../../openapi/demo-examples';

export class TokenDto {
  @ApiProperty({ example: 'So11111111111111111111111111111111111111112', description: 'Mint address' })
  address: string;
  @ApiProperty({
    example: 'SOL',
    description:
      "On-chain symbol (Token-2022 metadata extension, the account its metadata pointer names, or Metaplex metadata; a curated token list overrides). A token without metadata shows the first 4 characters of its mint, as the pool's `name` does.",
  })
  symbol: string;
  @ApiProperty({
    example: 'Wrapped SOL',
    description:
      'On-chain name, from the same sources as `symbol`; without one, the symbol as shown (so a token without metadata shows the first 4 characters of its mint).',
  })
  name: string;
  @ApiProperty({ type: 'integer', example: 9 })
  decimals: number;
  @ApiProperty({
    example: 'https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/So11111111111111111111111111111111111111112/logo.png',
    description: 'Icon URL; may be an empty string',
  })
  icon: string;
}

export class PoolConfigDto {
  @ApiProperty({ example: DEMO_EXAMPLES.authority })
  authority: string;
  @ApiProperty({ type: 'string', nullable: true, example: DEMO_EXAMPLES.quotingAuthority, description: 'null until the oracle account has been read' })
  quoting_authority: string | null;
  @ApiProperty({ type: 'integer', example: 0, description: 'Oracle mode; 0 is the default' })
  oracle_mode: number;
  @ApiProperty({ enum: ['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed'], example: 'Initialized' })
  pool_state: string;
  @ApiProperty({ type: 'number', nullable: true, example: 1, description: '(1 - spread_factor) × 10000; null until a spread factor is known' })
  base_spread_bps: number | null;
}

export class Window24hDto {
  @ApiProperty({ name: '24h', type: 'number', example: 125000.5 })
  '24h': number;
}

export class PoolDto {
  @ApiProperty({ example: DEMO_EXAMPLES.pool, description: 'Pool config PDA address' })
  address: string;
  @ApiProperty({
    example: 'SOL/USDC',
    description: '<BASE>/<QUOTE>: the symbols of token_x and token_y as shown (a token without metadata: the first 4 characters of its mint)',
  })
  name: string;
  @ApiProperty({ type: TokenDto, description: 'Base token' })
  token_x: TokenDto;
  @ApiProperty({ type: TokenDto, description: 'Quote token' })
  token_y: TokenDto;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: 13092356532597,
    description:
      'Raw vault X balance (atoms). Written with exact digits: may exceed 2^53, which JavaScript rounds; `raw_amounts=string` writes a decimal string instead',
  })
  token_x_amount: RawAmount;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: 2166607323901,
    description:
      'Raw vault Y balance (atoms). Written with exact digits: may exceed 2^53, which JavaScript rounds; `raw_amounts=string` writes a decimal string instead',
  })
  token_y_amount: RawAmount;
  @ApiProperty({ type: PoolConfigDto })
  pool_config: PoolConfigDto;
  @ApiProperty({ example: 4153973.07679005, description: 'x_amount × price + y_amount, quote-token units (USD for a USD quote)' })
  tvl: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 151.79587784223258,
    description: 'Human midprice = midprice × 10^(decimals_x − decimals_y); null before the first oracle update',
  })
  current_price: number | null;
  @ApiProperty({ type: Window24hDto, description: 'Swap volume of the last 24 h, quote-token units' })
  volume: Window24hDto;
  @ApiProperty({ type: Window24hDto, description: 'Fees (spread + protocol fee) of the last 24 h, quote-token units' })
  fees: Window24hDto;
}

export class PoolListResponseDto {
  @ApiProperty({ type: 'integer', example: 42, description: 'Pools matching the filters' })
  total: number;
  @ApiProperty({ type: 'integer', example: 3, description: 'ceil(total / page_size); 0 when nothing matches' })
  pages: number;
  @ApiProperty({ type: 'integer', example: 1 })
  current_page: number;
  @ApiProperty({ type: 'integer', example: 20 })
  page_size: number;
  @ApiProperty({ type: [PoolDto] })
  data: PoolDto[];
  @ApiProperty({ type: AsOfDto, description: 'How current the list is (an addition to the spec)' })
  as_of: AsOfDto;
}
