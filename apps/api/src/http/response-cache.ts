import { Inject, Injectable } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter } from 'prom-client';
import type { ApiConfig } from '../api.config';
import { DataFreshness } from '../freshness/data-freshness';
import { ProjectionPosition } from '../freshness/projection-position';
import { ApiMetrics } from '../metrics/api-metrics';
import { PoolListSnapshot } from '../pools/pool-list/pool-list.snapshot';
import { isPoolAddress } from './pool-address.pipe';
import { API_CONFIG, CLOCK, nowSeconds, type Clock } from './tokens';

/** The per-pool routes whose 200s are cached (route templates as Fastify knows them). */
const CACHED_ROUTES = new Set(['/pools/:address', '/pools/:address/fees', '/pools/:address/midprice/history', '/pools/:address/volume/history']);

/** What a 200 was, to send it again: the body before compression (its bytes), and the headers the handler and the HTTP layer gave it. */
interface Entry {
  version: string;
  body: Buffer | string;
  etag: string;
  contentType: string;
  cacheControl: string;
  bytes: number;
}

/** Bookkeeping per entry beyond the body (key, headers, map slot), for the byte bound. */
const ENTRY_OVERHEAD_BYTES = 256;

const PENDING = Symbol('response-cache-pending');
type Marked = FastifyRequest & { [PENDING]?: { key: string; version: string } };

/**
 * The key of a request: its path as sent, its query pairs as sent but sorted (so the order of
 * parameters does not matter; no decoding, so two requests share a key only if they are the same
 * request), and the current second, because a window that ends "now" (the default of every
 * history endpoint, and the fees intervals) moves with the clock.
 */
export function cacheKey(url: string, nowSec: number): string {
  const q = url.indexOf('?');
  if (q < 0) return `${url}@${nowSec}`;
  const pairs = url.slice(q + 1).split('&');
  pairs.sort();
  return `${url.slice(0, q)}?${pairs.join('&')}@${nowSec}`;
}

/**
 * Answers of the per-pool endpoints, kept in memory for clients that poll the same pool
 * (apps/api/README.md, "Response cache"). An entry is served again only while nothing it was made
 * from has moved: the served projections' position (read.projection_status, read afresh for every
 * hit: see ProjectionPosition.fresh), the pool list snapshot and the indexers' freshness (both in
 * memory), all in `version`; wall-clock windows are in the key. So a hit is never older than the same
 * request answered without the cache. Only 200s are kept; least recently used entries are dropped
 * beyond API_RESPONSE_CACHE_MAX_ENTRIES or API_RESPONSE_CACHE_MAX_BYTES (0 entries = off).
 */
@Injectable()
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  readonly maxEntries: number;
  readonly maxBytes: number;
  private readonly hits: Counter;
  private readonly misses: Counter;

  constructor(
    @Inject(API_CONFIG) config: Pick<ApiConfig, 'API_RESPONSE_CACHE_MAX_ENTRIES' | 'API_RESPONSE_CACHE_MAX_BYTES'>,
    private readonly position: ProjectionPosition,
    private readonly snapshot: PoolListSnapshot,
    private readonly freshness: DataFreshness,
    metrics: ApiMetrics,
  ) {
    this.maxEntries = config.API_RESPONSE_CACHE_MAX_ENTRIES;
    this.maxBytes = config.API_RESPONSE_CACHE_MAX_BYTES;
    this.hits = new Counter({
      name: 'hadron_api_response_cache_hits_total',
      help: 'Per-pool answers served from the response cache',
      registers: [metrics.registry],
    });
    this.misses = new Counter({
      name: 'hadron_api_response_cache_misses_total',
      help: 'Per-pool requests the response cache could not answer (absent, or made from older data)',
      registers: [metrics.registry],
    });
    metrics.gauge('hadron_api_response_cache_entries', 'Answers held by the response cache', () => this.entries.size);
    metrics.gauge('hadron_api_response_cache_bytes', 'Approximate bytes held by the response cache', () => this.bytes);
  }

  get enabled(): boolean {
    return this.maxEntries > 0 && this.maxBytes > 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** What the in-memory inputs are now, after `position`. */
  private versionOf(position: string): string {
    return `${position}|${this.snapshot.generation}|${this.freshness.generation}`;
  }

  /**
   * The entry for `key` if it is still current, else undefined; then `version` is what a new answer
   * may be stored under (undefined: do not store), read before the answer's queries start.
   */
  async lookup(key: string): Promise<{ hit: Entry } | { hit?: undefined; version: string | undefined }> {
    if (!this.entries.has(key)) {
      // Never waits: a miss costs what an uncached request costs (right after a start, with no
      // reading yet, the answer is just not kept; latest() has started one).
      const latest = this.position.latest();
      this.misses.inc();
      return { version: latest === null ? undefined : this.versionOf(latest) };
    }
    const now = await this.position.fresh();
    const version = now === null ? undefined : this.versionOf(now);
    // Read after the wait: a concurrent request may have stored a newer answer meanwhile.
    const entry = this.entries.get(key);
    if (entry !== undefined && version !== undefined && entry.version === version) {
      // Most recently used last (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.hits.inc();
      return { hit: entry };
    }
    this.misses.inc();
    return { version };
  }

  store(key: string, entry: Omit<Entry, 'bytes'>): void {
    const bytes = key.length + entry.body.length + ENTRY_OVERHEAD_BYTES;
    if (bytes > this.maxBytes || this.entries.get(key)?.version === entry.version) return;
    this.drop(key);
    this.entries.set(key, { ...entry, bytes });
    this.bytes += bytes;
    for (const [oldest, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= e.bytes;
    }
  }

  private drop(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }
}

/**
 * The cache in front of the per-pool routes: an onRequest hook (after the edge's: rate limit and
 * back-pressure still apply) answers a current entry before routing to Nest; an onSend hook
 * (after the freshness, ETag and 304 hook; before compression, which is per client) keeps a new
 * 200. Freshness, CORS, CSP, ETag/304 and compression headers are set per request as for any answer.
 */
export function registerResponseCache(app: NestFastifyApplication): void {
  const cache = app.get(ResponseCache);
  if (!cache.enabled) return;
  const clock = app.get<Clock>(CLOCK);
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  fastify.addHook('onRequest', async (request: Marked, reply: FastifyReply) => {
    if (request.method !== 'GET' || !CACHED_ROUTES.has(request.routeOptions.url ?? '')) return;
    // An address that can name no pool is refused before any query (PoolAddressPipe): not even the position is read.
    if (!isPoolAddress((request.params as { address?: unknown }).address)) return;
    // The second the request arrived: the answer, made at that second or later, is kept under it.
    const key = cacheKey(request.url, nowSeconds(clock));
    const found = await cache.lookup(key);
    if (found.hit === undefined) {
      if (found.version !== undefined) request[PENDING] = { key, version: found.version };
      return;
    }
    const e = found.hit;
    return reply.code(200).header('content-type', e.contentType).header('cache-control', e.cacheControl).header('etag', e.etag).send(e.body);
  });
  fastify.addHook('onSend', (request: Marked, reply, payload, done) => {
    const pending = request[PENDING];
    if (pending === undefined || reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) return done(null, payload);
    const etag = reply.getHeader('etag');
    const contentType = reply.getHeader('content-type');
    const cacheControl = reply.getHeader('cache-control');
    if (typeof etag === 'string' && typeof contentType === 'string' && typeof cacheControl === 'string') {
      cache.store(pending.key, { version: pending.version, body: payload, etag, contentType, cacheControl });
    }
    done(null, payload);
  });
}
