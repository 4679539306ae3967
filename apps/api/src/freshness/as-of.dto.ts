import { ApiProperty } from '@nestjs/swagger';

/**
 * `as_of` of the pool list and the fees report (an addition to the spec's shapes): how current the
 * data of a response is, for its cluster — what the cluster's active indexer last published. null
 * when no indexer has published yet. Projection (a few events, see /health/ready) comes on top.
 */
export class AsOfDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 385112930,
    description: 'Every transaction of the cluster up to this slot was indexed when the response was built; null before the indexer has published its progress',
  })
  slot: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 1764000000, description: 'Block time (Unix seconds) of the newest indexed transaction' })
  time: number | null;
  @ApiProperty({ type: 'number', nullable: true, example: 0, description: 'How far the indexed data is behind the chain head, seconds (0 at the head)' })
  lag_seconds: number | null;
}

const integerHeader = (description: string, example: number) => ({ description, schema: { type: 'integer' as const, example } });

/**
 * The response headers of every data response (200 and 304), documented on each operation. The
 * freshness headers are absent while no indexer of the cluster has published its progress.
 */
export const DATA_RESPONSE_HEADERS = {
  'X-Indexed-Slot': integerHeader('Every transaction of the requested cluster up to this slot is indexed (as `as_of.slot`)', 385112930),
  'X-Indexed-Time': integerHeader('Block time, Unix seconds, of the newest indexed transaction of the cluster (as `as_of.time`)', 1764000000),
  'X-Data-Lag-Seconds': {
    description: 'How far the indexed data is behind the chain head, seconds; 0 at the head (as `as_of.lag_seconds`)',
    schema: { type: 'number' as const, example: 0 },
  },
  ETag: {
    description:
      'Strong validator of this representation (content-coded ones carry a `-br`/`-gzip` suffix); send it back in `If-None-Match` to get 304 Not Modified when nothing changed',
    schema: { type: 'string' as const, example: '"u0mA8x2w1Vq3S6oOa7C0k9xQ2cI"' },
  },
  'Cache-Control': {
    description:
      '`public, max-age=1` for live data (windows ending now); `public, max-age=300` for a history window that closed before the indexed time, once backfill is done',
    schema: { type: 'string' as const, example: 'public, max-age=1' },
  },
  'Last-Modified': {
    description: 'The block time of the newest indexed transaction (`X-Indexed-Time`): nothing in the response is newer',
    schema: { type: 'string' as const, example: 'Mon, 24 Nov 2025 16:00:00 GMT' },
  },
};

/** Every data operation answers 304 to a matching If-None-Match. */
export const NOT_MODIFIED_RESPONSE = {
  status: 304,
  description: 'Not Modified: the `If-None-Match` request header matched the current `ETag`; no body. The freshness headers are current.',
  headers: DATA_RESPONSE_HEADERS,
} as const;
