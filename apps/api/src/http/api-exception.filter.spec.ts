import { BadRequestException, HttpException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { PG_UNDEFINED_COLUMN, PG_UNDEFINED_TABLE } from '@hadron/platform/database/pg-errors';
import type { Logger } from '@hadron/platform/logging/logger';
import { ApiException, invalidParameter, poolNotFound, REPEAT_LOG_EVERY_MS, RepeatedLog, toErrorBody } from './api-exception.filter';
import { RetryLaterException } from './heavy-query-gate';

describe('toErrorBody: the one error shape', () => {
  it('keeps 4xx messages as one string', () => {
    expect(toErrorBody(new BadRequestException('Invalid timeframe'))).toEqual({
      statusCode: 400,
      message: 'Invalid timeframe',
      error: 'Bad Request',
      code: 'invalid_request',
    });
    expect(toErrorBody(new NotFoundException('Pool not found'))).toEqual({ statusCode: 404, message: 'Pool not found', error: 'Not Found', code: 'not_found' });
    expect(toErrorBody(new BadRequestException(['a', 'b']))).toEqual({ statusCode: 400, message: 'a; b', error: 'Bad Request', code: 'invalid_request' });
    expect(toErrorBody(new HttpException('Unsupported Media Type', 415))).toEqual({
      statusCode: 415,
      message: 'Unsupported Media Type',
      error: 'Unsupported Media Type',
      code: 'invalid_request',
    });
  });

  it('adds the code and, when one parameter is at fault, its name', () => {
    expect(toErrorBody(invalidParameter('timeframe', 'Invalid timeframe'))).toEqual({
      statusCode: 400,
      message: 'Invalid timeframe',
      error: 'Bad Request',
      code: 'invalid_parameter',
      parameter: 'timeframe',
    });
    expect(toErrorBody(poolNotFound())).toEqual({
      statusCode: 404,
      message: 'Pool not found',
      error: 'Not Found',
      code: 'pool_not_found',
      parameter: 'address',
    });
    expect(toErrorBody(new ApiException(400, 'Unknown query parameter', 'unknown_parameter', 'x'))).toMatchObject({
      code: 'unknown_parameter',
      parameter: 'x',
    });
    expect(toErrorBody(new HttpException('no', 405))).toMatchObject({ statusCode: 405, code: 'method_not_allowed' });
    expect(toErrorBody(new HttpException('slow down', 429))).toMatchObject({ statusCode: 429, code: 'rate_limited', message: 'slow down' });
    expect(toErrorBody(new RetryLaterException(1))).toEqual({
      statusCode: 503,
      message: 'Service Unavailable',
      error: 'Service Unavailable',
      code: 'overloaded',
    });
  });

  it('never passes internals of a 5xx or an unexpected error', () => {
    expect(toErrorBody(new TypeError("Cannot read properties of undefined (reading 'x')"))).toEqual({
      statusCode: 500,
      message: 'Internal server error',
      error: 'Internal Server Error',
      code: 'internal_error',
    });
    expect(toErrorBody(new ServiceUnavailableException('pool exhausted at db.ts:12'))).toEqual({
      statusCode: 503,
      message: 'Service Unavailable',
      error: 'Service Unavailable',
      code: 'unavailable',
    });
  });

  it('a database that is down or not migrated yet is 503 (unavailable), not 500', () => {
    const unavailable = { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable', code: 'unavailable' };
    expect(toErrorBody(Object.assign(new Error('relation "read.pools" does not exist'), { code: PG_UNDEFINED_TABLE }))).toEqual(unavailable);
    // A column this release reads that the projector's migration has not added yet.
    expect(toErrorBody(Object.assign(new Error('column "tail" does not exist'), { code: PG_UNDEFINED_COLUMN }))).toEqual(unavailable);
    expect(toErrorBody(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toEqual(unavailable);
    expect(toErrorBody(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toEqual(unavailable);
  });
});

describe('RepeatedLog: a condition met per request, logged per period', () => {
  afterEach(() => jest.useRealTimers());

  it('logs the first occurrence at once, then how many more every REPEAT_LOG_EVERY_MS, and again at once after a quiet period', () => {
    jest.useFakeTimers();
    const lines: Array<[string, object, string]> = [];
    const at = (level: string) => (fields: object, msg: string) => lines.push([level, fields, msg]);
    const log = { warn: at('warn'), error: at('error') } as unknown as Logger;
    const repeated = new RepeatedLog(log, 'error', 'it started', 'it goes on');
    for (let i = 0; i < 5; i++) repeated.record({ route: '/r' });
    expect(lines).toEqual([['error', { route: '/r' }, 'it started']]);
    repeated.record({ route: '/r' });
    jest.advanceTimersByTime(REPEAT_LOG_EVERY_MS);
    expect(lines.slice(1)).toEqual([['error', { count: 5, seconds: REPEAT_LOG_EVERY_MS / 1000 }, 'it goes on']]);
    jest.advanceTimersByTime(REPEAT_LOG_EVERY_MS); // a period with none: nothing logged, and the period ends
    expect(lines).toHaveLength(2);
    repeated.record({ route: '/s' });
    expect(lines.slice(2)).toEqual([['error', { route: '/s' }, 'it started']]);
  });
});
