import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { API_ERROR_CODES, type ApiErrorCode } from '@hadron/contracts/api';

const CODE_DOC = {
  enum: API_ERROR_CODES,
  description:
    'Machine-readable reason (stable; `message` is for people): `invalid_parameter` and `unknown_parameter` name the parameter in `parameter`; `pool_not_found` (404), `not_found` (no such route), `method_not_allowed` (405), `body_not_allowed` (413), `rate_limited` (429), `overloaded` (503 with Retry-After), `unavailable` (503: the read database), `invalid_request`, `internal_error`.',
} as const;
const PARAMETER_DOC = { description: 'The query or path parameter at fault, when there is one' } as const;

const NOT_DOCUMENTED: PropertyDecorator = () => undefined;

interface ErrorExamples {
  statusCode: number;
  message: string;
  error: string;
  code: ApiErrorCode;
  parameter?: string;
}

/**
 * The one error shape (DESIGN §5): Nest's, with `message` always a single string, plus `code` and
 * `parameter`. Declared once here; each documented status gets its own schema name and examples.
 */
function errorShape(examples: ErrorExamples) {
  class ErrorShape {
    @ApiProperty({ type: 'integer', example: examples.statusCode })
    statusCode: number;
    @ApiProperty({ example: examples.message })
    message: string;
    @ApiProperty({ example: examples.error })
    error: string;
    @ApiProperty({ ...CODE_DOC, example: examples.code })
    code: ApiErrorCode;
    // Documented where the status can name a parameter (not on a 503).
    @(examples.parameter === undefined ? NOT_DOCUMENTED : ApiPropertyOptional({ ...PARAMETER_DOC, example: examples.parameter }))
    parameter?: string;
  }
  return ErrorShape;
}

export class ApiErrorDto extends errorShape({
  statusCode: 400,
  message: 'cluster must be one of: mainnet-beta, devnet',
  error: 'Bad Request',
  code: 'invalid_parameter',
  parameter: 'cluster',
}) {}

export class NotFoundErrorDto extends errorShape({
  statusCode: 404,
  message: 'Pool not found',
  error: 'Not Found',
  code: 'pool_not_found',
  parameter: 'address',
}) {}

export class ServiceUnavailableErrorDto extends errorShape({
  statusCode: 503,
  message: 'Service Unavailable',
  error: 'Service Unavailable',
  code: 'unavailable',
}) {}

/** Documented on every data endpoint: the read database is down, or not migrated (to this release) yet (see /health/ready). */
export const UNAVAILABLE_RESPONSE = {
  type: ServiceUnavailableErrorDto,
  description:
    'The read database is unreachable, or the projector has not created the read schema yet or not migrated it to this release (see /health/ready): code `unavailable`; or the replica is overloaded (too many per-pool queries waiting, or its event loop lagging): code `overloaded`, and `Retry-After` says when to retry',
} as const;
