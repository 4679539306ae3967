import { ApiProperty } from '@nestjs/swagger';
import type { ApiErrorBody } from '@hadron/contracts/api';

/** The one error shape (DESIGN §5): Nest's, with `message` always a single string. */
export class ApiErrorDto implements ApiErrorBody {
  @ApiProperty({ type: 'integer', example: 400 })
  statusCode: number;
  @ApiProperty({ example: 'cluster must be one of: mainnet-beta, devnet' })
  message: string;
  @ApiProperty({ example: 'Bad Request' })
  error: string;
}

export class NotFoundErrorDto implements ApiErrorBody {
  @ApiProperty({ type: 'integer', example: 404 })
  statusCode: number;
  @ApiProperty({ example: 'Pool not found' })
  message: string;
  @ApiProperty({ example: 'Not Found' })
  error: string;
}

export class ServiceUnavailableErrorDto implements ApiErrorBody {
  @ApiProperty({ type: 'integer', example: 503 })
  statusCode: number;
  @ApiProperty({ example: 'Service Unavailable' })
  message: string;
  @ApiProperty({ example: 'Service Unavailable' })
  error: string;
}

/** Documented on every data endpoint: the read database is down or not migrated yet (see /health/ready). */
export const UNAVAILABLE_RESPONSE = {
  type: ServiceUnavailableErrorDto,
  description: 'The read database is unreachable, or the projector has not created the read schema yet (see /health/ready); or the replica is overloaded (too many per-pool queries waiting, or its event loop lagging): then `Retry-After` says when to retry',
} as const;
