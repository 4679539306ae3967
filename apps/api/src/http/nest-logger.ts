import type { LoggerService } from '@nestjs/common';
import type { Logger } from '@hadron/platform/logging/logger';

/** Nest's own messages into the process's pino logger; its boot chatter (route maps) at debug. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.pino.debug({ context: context(rest) }, String(message));
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.pino.error({ context: context(rest), detail: rest.length > 1 ? rest[0] : undefined }, String(message));
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.pino.warn({ context: context(rest) }, String(message));
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.pino.debug({ context: context(rest) }, String(message));
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.pino.trace({ context: context(rest) }, String(message));
  }
}

function context(rest: unknown[]): string | undefined {
  const last = rest[rest.length - 1];
  return typeof last === 'string' ? last : undefined;
}
