import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { API_ERROR_CODES, type ApiErrorBody, type ApiErrorCode } from '@hadron/contracts/api';

const CODE_DOC = {
  enum: API_ERROR_CODES,
  description:
    'Machine-readable reason (stable; `message` is for people): `invalid_parameter` and `unknown_parameter` name the parameter in `parameter`; `pool_not_found` (404), `not_found` (no such route), `method_not_allowed` (405), `body_not_allowed` (413), `rate_limited` (429), `overloaded` (503 with Retry-After), `unavailable` (503: the read database), `invalid_request`, `internal_error`.',
} as const;
const PARAMETER_DOC = { description: 'The query or path parameter at fault, when there is one' } as const;

/** The one error shape (DESIGN §5): Nest's, with `message` always a single string, plus `code` and `parameter`. */
export class ApiErrorDto implements ApiErrorBody {
  @ApiProperty({ type: 'integer', example: 400 })
  statusCode: number;
  @ApiProperty({ example: 'cluster must be one of: mainnet-beta, devnet' })
  message: string;
  @ApiProperty({ example: 'Bad Request' })
  error: string;
  @ApiProperty({ ...CODE_DOC, example: 'invalid_parameter' })
  code: ApiErrorCode;
  @ApiPropertyOptional({ ...PARAMETER_DOC, example: 'cluster' })
  parameter?: string;
}

export class NotFoundErrorDto implements ApiErrorBody {
  @ApiProperty({ type: 'integer', example: 404 })
  statusCode: number;
  @ApiProperty({ example: 'Pool not found' })
  message: string;
  @ApiProperty({ example: 'Not Found' })
  error: string;
  @ApiProperty({ ...CODE_DOC, example: 'pool_not_found' })
  code: ApiErrorCode;
  @ApiPropertyOptional({ ...PARAMETER_DOC, example: 'address' })
  parameter?: string;
}

export class ServiceUnavailableErrorDto implements ApiErrorBody {
  @ApiProperty({ type: 'integer', example: 503 })
  statusCode: number;
  @ApiProperty({ example: 'Service Unavailable' })
  message: string;
  @ApiProperty({ example: 'Service Unavailable' })
  error: string;
  @ApiProperty({ ...CODE_DOC, example: 'unavailable' })
  code: ApiErrorCode;
}

/** Documented on every data endpoint: the read database is down or not migrated yet (see /health/ready). */
export const UNAVAILABLE_RESPONSE = {
  type: ServiceUnavailableErrorDto,
  description:
    'The read database is unreachable, or the projector has not created the read schema yet (see /health/ready): code `unavailable`; or the replica is overloaded (too many per-pool queries waiting, or its event loop lagging): code `overloaded`, and `Retry-After` says when to retry',
} as const;
