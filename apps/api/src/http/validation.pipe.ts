import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

/**
 * The global pipe (STYLE §8): whitelist + forbidNonWhitelisted + transform, and one message per
 * error. Unknown query parameters are reported first, naming the parameters the endpoint accepts;
 * otherwise the first invalid parameter (in declaration order) gives the message.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => new BadRequestException(validationMessage(errors)),
  });
}

export function validationMessage(errors: readonly ValidationError[]): string {
  const unknown = errors.filter((e) => e.constraints?.whitelistValidation).map((e) => e.property);
  if (unknown.length > 0) {
    const allowed = allowedParams(errors[0].target);
    const names = unknown.map((n) => `'${n}'`).join(', ');
    return `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}; allowed: ${allowed.join(', ') || '(none)'}`;
  }
  for (const e of errors) {
    const first = e.constraints ? Object.values(e.constraints)[0] : undefined;
    if (first) return first;
  }
  return 'Invalid request';
}

function allowedParams(target: object | undefined): string[] {
  if (!target) return [];
  const metas = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return [...new Set(metas.map((m) => m.propertyName))];
}
