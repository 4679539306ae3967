import { applyDecorators, Get, Header } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { DATA_RESPONSE_HEADERS, NOT_MODIFIED_RESPONSE } from '../freshness/as-of.dto';
import { ApiErrorDto, NotFoundErrorDto, UNAVAILABLE_RESPONSE } from './api-error.dto';
import { ADDRESS_PARAM_DOC } from './common-params';
import { JSON_CONTENT_TYPE } from './json';

export interface DataEndpointDoc {
  /** The route under `/pools` (Nest path syntax), e.g. `':address/fees'`; `undefined` for `/pools` itself. */
  path?: string;
  operationId: string;
  summary: string;
  description: string;
  /** The 200 body's DTO class. */
  ok: abstract new (...args: never[]) => unknown;
  /** What makes a 400 (besides a repeated or unknown parameter). */
  badRequest: string;
}

/**
 * A GET data endpoint under `/pools`, documented the same way everywhere: its JSON content type,
 * 200 with the freshness and caching headers, 304, 400 in the one error shape, 503; with an
 * `{address}` in the path also the address parameter and the 404 `Pool not found`.
 */
export function DataEndpoint(doc: DataEndpointDoc): MethodDecorator {
  const perPool = doc.path?.includes(':address') ?? false;
  return applyDecorators(
    Get(doc.path ?? ''),
    Header('Content-Type', JSON_CONTENT_TYPE),
    ApiOperation({ operationId: doc.operationId, summary: doc.summary, description: doc.description }),
    ...(perPool ? [ApiParam(ADDRESS_PARAM_DOC)] : []),
    ApiOkResponse({ type: doc.ok, headers: DATA_RESPONSE_HEADERS }),
    ApiResponse(NOT_MODIFIED_RESPONSE),
    ApiBadRequestResponse({ type: ApiErrorDto, description: `${doc.badRequest}; a repeated or unknown parameter` }),
    ...(perPool ? [ApiNotFoundResponse({ type: NotFoundErrorDto, description: 'Not a pool of this cluster' })] : []),
    ApiServiceUnavailableResponse(UNAVAILABLE_RESPONSE),
  );
}
