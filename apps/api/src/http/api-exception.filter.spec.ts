import { BadRequestException, HttpException, NotFoundException, ServiceUnavailableException } from '@nestjs/common';
import { toErrorBody } from './api-exception.filter';

describe('toErrorBody: the one error shape', () => {
  it('keeps 4xx messages as one string', () => {
    expect(toErrorBody(new BadRequestException('Invalid timeframe'))).toEqual({ statusCode: 400, message: 'Invalid timeframe', error: 'Bad Request' });
    expect(toErrorBody(new NotFoundException('Pool not found'))).toEqual({ statusCode: 404, message: 'Pool not found', error: 'Not Found' });
    expect(toErrorBody(new BadRequestException(['a', 'b']))).toEqual({ statusCode: 400, message: 'a; b', error: 'Bad Request' });
    expect(toErrorBody(new HttpException('Unsupported Media Type', 415))).toEqual({ statusCode: 415, message: 'Unsupported Media Type', error: 'Unsupported Media Type' });
  });

  it('never passes internals of a 5xx or an unexpected error', () => {
    expect(toErrorBody(new TypeError("Cannot read properties of undefined (reading 'x')"))).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' });
    expect(toErrorBody(new ServiceUnavailableException('pool exhausted at db.ts:12'))).toEqual({ statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable' });
  });

  it('a database that is down or not migrated yet is 503 (unavailable), not 500', () => {
    const unavailable = { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable' };
    expect(toErrorBody(Object.assign(new Error('relation "read.pools" does not exist'), { code: '42P01' }))).toEqual(unavailable);
    expect(toErrorBody(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toEqual(unavailable);
    expect(toErrorBody(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toEqual(unavailable);
  });
});
