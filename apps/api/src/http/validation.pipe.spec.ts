import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import fc from 'fast-check';
import { GetMidpriceHistoryRequestDto } from '../midprice/queries/get-midprice-history/get-midprice-history.request.dto';
import { GetPoolRequestDto } from '../pools/queries/get-pool/get-pool.request.dto';
import { ListPoolsRequestDto } from '../pools/queries/list-pools/list-pools.request.dto';
import { GetPoolFeesRequestDto } from '../swaps/queries/get-pool-fees/get-pool-fees.request.dto';
import { GetVolumeHistoryRequestDto } from '../swaps/queries/get-volume-history/get-volume-history.request.dto';
import { parseQueryFast } from './query-params';
import { createValidationPipe, VALIDATION_OPTIONS } from './validation.pipe';

/** Values a client might send: valid ones of every parameter, near misses, and anything. */
const SAMPLES = [
  'mainnet-beta',
  'devnet',
  'Devnet',
  'number',
  'string',
  '1h',
  '24h',
  '7d',
  '30d',
  'all',
  '1m',
  '5m',
  '4h',
  'raw',
  '1',
  '20',
  '100',
  '1000',
  '1001',
  '0',
  '007',
  '-1',
  '1.5',
  '1e3',
  '1763800000',
  '9999999999',
  '1763800000000',
  '',
  ' ',
  ' sol ',
  'tvl:desc',
  'volume_24h:asc',
  'paused',
];
const NAMES = [
  'cluster',
  'raw_amounts',
  'interval',
  'timeframe',
  'start_time',
  'end_time',
  'limit',
  'cursor',
  'page',
  'page_size',
  'query',
  'sort_by',
  'pool_state',
  'token',
  'x',
  'toQuery',
  'data',
];

const value = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...SAMPLES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...SAMPLES), { minLength: 2, maxLength: 2 }) },
);
const query = fc.dictionary(fc.constantFrom(...NAMES), value, { maxKeys: 5 }).map((q) => Object.assign(Object.create(null) as object, q));

const DTOS = [GetPoolRequestDto, GetPoolFeesRequestDto, GetMidpriceHistoryRequestDto, GetVolumeHistoryRequestDto, ListPoolsRequestDto];

/** Nest's own ValidationPipe with the API's options: what every query went through before the fast path. */
const classic = new ValidationPipe(VALIDATION_OPTIONS);

async function outcome(run: () => Promise<unknown>): Promise<{ ok: unknown } | { error: unknown }> {
  try {
    return { ok: await run() };
  } catch (e) {
    return { error: e };
  }
}

describe('query validation fast path', () => {
  it.each(DTOS.map((d) => [d.name, d] as const))(
    '%s: the same DTO as class-transformer + class-validator, or the full pipe (same error)',
    async (_name, dto) => {
      const pipe = createValidationPipe();
      let fastHits = 0;
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const meta = { type: 'query' as const, metatype: dto, data: undefined };
          const fast = parseQueryFast(dto, q);
          const before = await outcome(() => classic.transform({ ...q }, meta));
          const now = await outcome(() => pipe.transform({ ...q }, meta));
          if (fast !== undefined) {
            fastHits++;
            expect(fast).toBeInstanceOf(dto);
            expect(before).toStrictEqual({ ok: fast });
            expect(Object.keys(fast)).toEqual(Object.keys((before as { ok: object }).ok));
          }
          // What the API answers is unchanged either way: the same DTO, or the same exception.
          if ('ok' in before) {
            expect(now).toStrictEqual(before);
            expect((now as { ok: unknown }).ok).toBeInstanceOf(dto);
          } else {
            expect('error' in now).toBe(true);
            expect((now as { error: { getResponse(): unknown } }).error.getResponse()).toEqual((before.error as { getResponse(): unknown }).getResponse());
          }
        }),
        { numRuns: 400 },
      );
      expect(fastHits).toBeGreaterThan(20);
    },
  );

  it('takes every valid query of the per-pool endpoints, including none at all', () => {
    expect(parseQueryFast(GetPoolFeesRequestDto, {})).toEqual(new GetPoolFeesRequestDto());
    const sampled = parseQueryFast(GetMidpriceHistoryRequestDto, { timeframe: '5m', end_time: '1763800000', limit: '50', cluster: 'devnet' });
    expect(sampled).toBeInstanceOf(GetMidpriceHistoryRequestDto);
    expect(sampled).toMatchObject({ timeframe: '5m', end_time: 1763800000, limit: 50, cluster: 'devnet', start_time: undefined });
    expect(parseQueryFast(GetVolumeHistoryRequestDto, { timeframe: '1h' })).toBeUndefined();
    expect(parseQueryFast(GetPoolRequestDto, { raw_amounts: ['string', 'string'] })).toBeUndefined();
  });
});
