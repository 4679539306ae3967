import { ValidationPipe, type ArgumentMetadata, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { ApiException } from './api-exception.filter';
import { parseQueryFast } from './query-params';

/**
 * The global pipe (STYLE §8): whitelist + forbidNonWhitelisted + transform, and one message per
 * error. Unknown query parameters are reported first, naming the parameters the endpoint accepts;
 * otherwise the first invalid parameter (in declaration order) gives the message.
 */
export function createValidationPipe(): ValidationPipe {
  return new QueryValidationPipe(VALIDATION_OPTIONS);
}

export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  stopAtFirstError: true,
  validationError: { target: true, value: false },
  exceptionFactory: (errors) => validationException(errors),
};

/** Keys that name an object's prototype: class-transformer never copies them, so the whitelist would not see them. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The ValidationPipe, plus: a prototype key in the query string is an unknown parameter like any other. */
class QueryValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'query' && value !== null && typeof value === 'object' && metadata.metatype) {
      const unknown = Object.keys(value).filter((k) => PROTOTYPE_KEYS.has(k));
      if (unknown.length > 0) throw new ApiException(400, unknownParamsMessage(unknown, allowedParams(metadata.metatype)), 'unknown_parameter', unknown[0]);
      // A valid query (nearly every request) is built straight from the parsers: class-transformer
      // and class-validator cost more than the rest of the request's own work. Anything else takes the
      // full pipe below, which writes the error.
      const fast = parseQueryFast(metadata.metatype as abstract new () => object, value);
      if (fast !== undefined) return fast;
    }
    return super.transform(value, metadata);
  }
}

function unknownParamsMessage(unknown: readonly string[], allowed: readonly string[]): string {
  const names = unknown.map((n) => `'${n}'`).join(', ');
  return `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}; allowed: ${allowed.join(', ') || '(none)'}`;
}

/** The one 400 of a failed validation: unknown parameters first (code unknown_parameter), else the first invalid one. */
export function validationException(errors: readonly ValidationError[]): ApiException {
  const unknown = errors.filter((e) => e.constraints?.whitelistValidation).map((e) => e.property);
  if (unknown.length > 0) {
    const allowed = errors[0].target ? allowedParams(errors[0].target.constructor as abstract new () => unknown) : [];
    return new ApiException(400, unknownParamsMessage(unknown, allowed), 'unknown_parameter', unknown[0]);
  }
  for (const e of errors) {
    const first = e.constraints ? Object.values(e.constraints)[0] : undefined;
    if (first) return new ApiException(400, first, 'invalid_parameter', e.property);
  }
  return new ApiException(400, 'Invalid request', 'invalid_request');
}

function allowedParams(dto: abstract new (...args: never[]) => unknown): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}
