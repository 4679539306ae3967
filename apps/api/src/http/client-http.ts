import * as crypto from 'node:crypto';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { CLUSTERS, DEFAULT_CLUSTER, type Cluster } from '@hadron/contracts/api';
import type { ApiConfig } from '../api.config';
import { DataFreshness, type ClusterAsOf } from '../freshness/data-freshness';

/** Response headers a web page may read besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS = ['ETag', 'X-Indexed-Slot', 'X-Indexed-Time', 'X-Data-Lag-Seconds', 'Retry-After'];

/** Live data: the pool list, a pool and the fees windows end now and move every second or so. */
export const LIVE_CACHE_CONTROL = 'public, max-age=1';
/** A history window that closed before the indexed time (see cacheHistoryWindow). */
export const CLOSED_WINDOW_CACHE_CONTROL = 'public, max-age=300';
/** A window counts as closed once the indexer is this far past its end (late transactions of a slot settle). */
const CLOSED_AFTER_S = 60;

/** Content codings the API answers in, in order of preference; the ETag of a coded body carries its coding. */
const ENCODINGS = ['br', 'gzip'] as const;
const CODING_SUFFIX = /-(br|gzip)"$/;

/** The request's path, without the query string. */
export function requestPath(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q < 0 ? request.url : request.url.slice(0, q);
}

const isData = (path: string) => path === '/pools' || path.startsWith('/pools/');

/** The cluster a data request asked for (the default when absent; validation has already refused a bad one). */
function clusterOf(request: FastifyRequest): Cluster {
  const v = (request.query as Record<string, unknown> | undefined)?.cluster;
  return typeof v === 'string' && (CLUSTERS as readonly string[]).includes(v) ? (v as Cluster) : DEFAULT_CLUSTER;
}

/** SHA-1 in hex: one call without a Hash object where Node has crypto.hash (20.12+), else createHash. */
const sha1Hex: (body: string | Buffer) => string =
  typeof crypto.hash === 'function' ? (body) => crypto.hash('sha1', body, 'hex') : (body) => crypto.createHash('sha1').update(body).digest('hex');

/** A strong validator of the body: hex (no `-`, so a coding suffix can always be told apart). */
export function entityTag(body: string | Buffer): string {
  return `"${sha1Hex(body).slice(0, 32)}"`;
}

/** The freshness headers of a cluster's state, written once per state (DataFreshness replaces the object when it polls). */
const freshnessHeaders = new WeakMap<ClusterAsOf, ReadonlyArray<readonly [string, string]>>();

function headersOf(f: ClusterAsOf): ReadonlyArray<readonly [string, string]> {
  let headers = freshnessHeaders.get(f);
  if (headers === undefined) {
    const h: Array<readonly [string, string]> = [];
    if (f.slot !== null) h.push(['x-indexed-slot', String(f.slot)]);
    if (f.time !== null) h.push(['x-indexed-time', String(f.time)], ['last-modified', new Date(f.time * 1000).toUTCString()]);
    if (f.lag_seconds !== null) h.push(['x-data-lag-seconds', String(f.lag_seconds)]);
    headers = h;
    freshnessHeaders.set(f, headers);
  }
  return headers;
}

/**
 * The tag of `If-None-Match` that matches `tag` (weak comparison, RFC 9110 §13.1.2: `W/` and the
 * `-br`/`-gzip` suffix of a coded variant ignored), to echo in the 304; null when none does.
 */
export function matchingTag(ifNoneMatch: string, tag: string): string | null {
  if (ifNoneMatch.trim() === '*') return tag;
  for (const raw of ifNoneMatch.split(',')) {
    const candidate = raw.trim();
    const opaque = candidate.startsWith('W/') ? candidate.slice(2) : candidate;
    if (opaque.replace(CODING_SUFFIX, '"') === tag) return opaque;
  }
  return null;
}

/**
 * Cache-Control for a history response whose window ends at `windowEnd` (Unix s): a window that
 * ended well before the newest indexed transaction, with backfill done, can only change by a
 * late gap fill: clients and caches may keep it 5 minutes. Anything else is live.
 */
export function cacheHistoryWindow(reply: FastifyReply, freshness: DataFreshness, cluster: Cluster, windowEnd: number): void {
  const f = freshness.of(cluster);
  const closed = f.backfillDone && f.time !== null && windowEnd + CLOSED_AFTER_S < f.time;
  void reply.header('cache-control', closed ? CLOSED_WINDOW_CACHE_CONTROL : LIVE_CACHE_CONTROL);
}

/**
 * HTTP the way browsers and clients expect it (README "HTTP for clients"):
 * - CORS (@fastify/cors): any origin by default (API_CORS_ORIGINS), GET/HEAD/OPTIONS, preflights
 *   answered (204) before anything else runs; errors carry the headers too, so a page can read them;
 * - on every data response (`/pools…`): the freshness headers of the request's cluster
 *   (X-Indexed-Slot, X-Indexed-Time, X-Data-Lag-Seconds), Last-Modified (the indexed time),
 *   Cache-Control (live unless the controller said the window is closed);
 * - a strong ETag on every 200 and 304 Not Modified on a matching If-None-Match;
 * - br/gzip (@fastify/compress) from API_COMPRESS_MIN_BYTES; a coded body's ETag gets `-br`/`-gzip`
 *   (the bytes differ, so must a strong tag), and If-None-Match accepts either form;
 * - errors, health and metrics: `Cache-Control: no-store`.
 * Registered before the routes (their onSend hooks are attached as routes are added).
 */
export async function registerCors(app: NestFastifyApplication, config: ApiConfig): Promise<void> {
  await app.register(cors as never, {
    origin: config.API_CORS_ORIGINS,
    methods: ['GET', 'HEAD', 'OPTIONS'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    // A bare OPTIONS (no Origin) is answered 204 too, not a text/plain 400 outside the one error shape.
    strictPreflight: false,
  });
}

export async function registerClientHttp(app: NestFastifyApplication, config: ApiConfig): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  const freshness = app.get(DataFreshness);
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const path = requestPath(request);
    if (reply.statusCode >= 400 || path === '/metrics' || path.startsWith('/health')) {
      void reply.header('cache-control', 'no-store');
      return done(null, payload);
    }
    if (isData(path)) {
      for (const [name, value] of headersOf(freshness.of(clusterOf(request)))) void reply.header(name, value);
      if (!reply.hasHeader('cache-control')) void reply.header('cache-control', LIVE_CACHE_CONTROL);
    }
    if (reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload)) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return done(null, payload);
    }
    // A body from the response cache comes with its tag (the hash of the same bytes). Otherwise the
    // body is encoded once: its bytes are hashed and sent (hashing the string, then sending it,
    // encoded a 50 KB history twice).
    const cached = reply.getHeader('etag');
    const body = typeof payload === 'string' && typeof cached !== 'string' ? Buffer.from(payload) : payload;
    const tag = typeof cached === 'string' ? cached : entityTag(body);
    void reply.header('etag', tag);
    const ifNoneMatch = request.headers['if-none-match'];
    const matched = ifNoneMatch === undefined ? null : matchingTag(ifNoneMatch, tag);
    if (matched === null) return done(null, body);
    // The 304 carries the tag the client holds (coded or not) and no body.
    void reply.code(304).header('etag', matched).removeHeader('content-type').removeHeader('content-length');
    done(null, '');
  });
  await app.register(compress as never, { global: true, encodings: [...ENCODINGS], threshold: config.API_COMPRESS_MIN_BYTES });
  // Route-level onSend hooks run after the app's, in order: compress's (added as each route is
  // added, by its onRoute hook registered above), then this one, which marks a coded body's tag.
  const markCoding: onSendHookHandler = (_request, reply, payload, done) => {
    const coding = reply.getHeader('content-encoding');
    const tag = reply.getHeader('etag');
    if (typeof coding === 'string' && typeof tag === 'string' && !CODING_SUFFIX.test(tag)) void reply.header('etag', `${tag.slice(0, -1)}-${coding}"`);
    done(null, payload);
  };
  fastify.addHook('onRoute', (route) => {
    const existing = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...existing, markCoding];
  });
}
