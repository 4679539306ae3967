import { STATUS_CODES } from 'node:http';
import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { POOL_NOT_FOUND_MESSAGE, type ApiErrorCode } from '@hadron/contracts/api';
import { isMissingReadObject } from '@hadron/platform/database/pg-errors';
import { isTransientDbError } from '@hadron/platform/database/pool';
import type { Logger } from '@hadron/platform/logging/logger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiErrorDto } from './api-error.dto';
import { RetryLaterException } from './heavy-query-gate';
import { JSON_CONTENT_TYPE } from './json';

/**
 * The one place that writes error responses (STYLE §9): `{statusCode, message, error}` with a
 * string message, for Nest and Fastify errors alike. Anything unexpected is logged here with its
 * stack and answered with a bare 500; no stack trace or internal message reaches a client.
 */
/** Errors that say the client's socket is gone, not that anything here failed. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

/** At most one line per this many milliseconds for a condition that repeats per request (see RepeatedLog). */
export const REPEAT_LOG_EVERY_MS = 10_000;

/**
 * A condition met once per request while it lasts: load shedding (HeavyQueryGate's 503
 * `overloaded`, the API working as designed) or the read database being unavailable (503
 * `unavailable`). Both happen exactly when the process is in trouble, and a line with a stack per
 * request would add work (and gigabytes of logs) to an overload, a flood or an outage. So the first
 * occurrence of a quiet period is logged at once, then one line per REPEAT_LOG_EVERY_MS with how
 * many more there were. Every such answer is still counted per route in
 * `hadron_api_request_duration_seconds`.
 */
export class RepeatedLog {
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    private readonly level: 'warn' | 'error',
    private readonly first: string,
    private readonly again: string,
  ) {}

  record(fields: object): void {
    if (this.timer !== undefined) {
      this.count++;
      return;
    }
    this.log[this.level](fields, this.first);
    this.timer = setTimeout(() => this.tick(), REPEAT_LOG_EVERY_MS).unref();
  }

  private tick(): void {
    this.timer = undefined;
    if (this.count === 0) return; // quiet again: the next occurrence is logged at once
    this.log[this.level]({ count: this.count, seconds: REPEAT_LOG_EVERY_MS / 1000 }, this.again);
    this.count = 0;
    this.timer = setTimeout(() => this.tick(), REPEAT_LOG_EVERY_MS).unref();
  }
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly shedLog: RepeatedLog;
  private readonly unavailableLog: RepeatedLog;

  constructor(private readonly log: Logger) {
    this.shedLog = new RepeatedLog(
      log,
      'warn',
      'shedding load: per-pool queries beyond API_HEAVY_CONCURRENCY + API_HEAVY_QUEUE are answered 503 overloaded',
      'still shedding load: per-pool queries answered 503 overloaded',
    );
    this.unavailableLog = new RepeatedLog(
      log,
      'error',
      'the read database is unavailable (unreachable, or the read views do not exist yet): requests that need it are answered 503 unavailable',
      'the read database is still unavailable: requests answered 503 unavailable',
    );
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const body = toErrorBody(exception);
    if (body.statusCode >= 500) {
      // The client is gone (it aborted, or its socket broke while we wrote): nothing failed here.
      if (request?.raw?.destroyed || CLIENT_GONE.has((exception as { code?: string })?.code ?? '')) {
        this.log.debug(
          { method: request?.method, url: request?.url?.slice(0, 200), code: (exception as { code?: string })?.code },
          'client closed the connection before the answer',
        );
        return;
      }
      if (exception instanceof RetryLaterException) this.shedLog.record({ route: request?.routeOptions?.url ?? '' });
      else if (isDatabaseUnavailable(exception)) this.unavailableLog.record({ err: exception, route: request?.routeOptions?.url ?? '' });
      else this.log.error({ err: exception, method: request?.method, url: request?.url }, 'request failed');
    }
    if (reply.sent) return;
    if (exception instanceof RetryLaterException) void reply.header('retry-after', String(exception.retryAfterSeconds));
    sendErrorBody(reply, body);
  }
}

/** Writes an error body with its status (also for errors raised before routing, at the edge, by plugins). */
export function sendErrorBody(reply: FastifyReply, body: ApiErrorDto): FastifyReply {
  return reply.code(body.statusCode).header('content-type', JSON_CONTENT_TYPE).send(JSON.stringify(body));
}

/**
 * The read database is down, or the projector has not created the `read` views yet (or not yet
 * migrated them to this release: a column it adds): the service is unavailable (503, as readiness
 * says), not broken.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  return isTransientDbError(e) || isMissingReadObject(e);
}

/**
 * An error the API raises on purpose, with its code and (when one parameter is at fault) the
 * parameter's name: `new ApiException(400, message, 'invalid_parameter', 'cluster')`.
 */
export class ApiException extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly code: ApiErrorCode,
    readonly parameter?: string,
  ) {
    super(message, status);
  }
}

/** A query or path parameter's value is invalid (400, names the parameter). */
export function invalidParameter(parameter: string, message: string): ApiException {
  return new ApiException(400, message, 'invalid_parameter', parameter);
}

/** `{address}` names no pool of the cluster (404 `Pool not found`, the message DESIGN §5 fixes). */
export function poolNotFound(): ApiException {
  return new ApiException(404, POOL_NOT_FOUND_MESSAGE, 'pool_not_found', 'address');
}

/** The code of an error raised without one (by Nest, Fastify, a plugin), from its status. */
const CODE_OF_STATUS: Record<number, ApiErrorCode> = {
  400: 'invalid_request',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'body_not_allowed',
  429: 'rate_limited',
  503: 'unavailable',
};

export function toErrorBody(exception: unknown): ApiErrorDto {
  if (exception instanceof HttpException) {
    const statusCode = exception.getStatus();
    const error = STATUS_CODES[statusCode] ?? 'Error';
    const response = exception.getResponse();
    let message: unknown = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    if (Array.isArray(message)) message = message.join('; ');
    // A 5xx message may carry internals: the client gets the status phrase only.
    if (statusCode >= 500 || typeof message !== 'string' || message === '') message = error;
    const code: ApiErrorCode =
      exception instanceof ApiException
        ? exception.code
        : exception instanceof RetryLaterException
          ? 'overloaded'
          : (CODE_OF_STATUS[statusCode] ?? (statusCode >= 500 ? 'internal_error' : 'invalid_request'));
    const body: ApiErrorDto = { statusCode, message: message as string, error, code };
    if (exception instanceof ApiException && exception.parameter !== undefined) body.parameter = exception.parameter;
    return body;
  }
  if (isDatabaseUnavailable(exception)) return { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable', code: 'unavailable' };
  return { statusCode: 500, message: 'Internal server error', error: 'Internal Server Error', code: 'internal_error' };
}
