import rateLimit from '@fastify/rate-limit';
import { HttpException } from '@nestjs/common';
import underPressure from '@fastify/under-pressure';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiConfig } from '../api.config';
import { sendErrorBody, toErrorBody } from './api-exception.filter';
import { registerCors, requestPath } from './client-http';
import { RetryLaterException } from './heavy-query-gate';
import { JSON_CONTENT_TYPE } from './json';

/** The only methods any route answers (HEAD: a GET without its body; OPTIONS: CORS preflights and what is allowed). */
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** Liveness and scrapes are answered under pressure and never rate-limited: a busy replica is not a dead one. */
const ALWAYS_ANSWERED = new Set(['/health', '/metrics']);
/** Probes come from the load balancer's few addresses: never rate-limited. */
const PROBES = new Set(['/health', '/health/ready']);

/** Swagger UI: its own scripts and styles only; it fetches /docs-json from the same origin. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** The explorer page (/ and /explorer/*): its own bundle only; token icons are remote https images. */
export const EXPLORER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
/** Everything else is data: nothing in it may ever be run or framed. */
export const DATA_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Node's and Fastify's timeouts for the API's listener: a client must send its headers within
 * API_HEADERS_TIMEOUT_MS and its whole request within API_REQUEST_TIMEOUT_MS (Node checks every
 * second), and an idle kept-alive connection is closed after API_KEEP_ALIVE_TIMEOUT_MS. No route
 * reads a body (bodyLimit is Fastify's cap should one ever parse one; requests that carry a body
 * are refused before that, see `refuseBodies`).
 */
export function edgeServerOptions(config: ApiConfig) {
  return {
    requestTimeout: config.API_REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.API_KEEP_ALIVE_TIMEOUT_MS,
    bodyLimit: 1024,
    trustProxy: config.API_TRUST_PROXY,
    http: {
      headersTimeout: Math.min(config.API_HEADERS_TIMEOUT_MS, config.API_REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: 1000,
    },
  };
}

function cspFor(p: string): string {
  if (p === '/docs' || p.startsWith('/docs/')) return DOCS_CSP;
  if (p === '/' || p.startsWith('/explorer/')) return EXPLORER_CSP;
  return DATA_CSP;
}

const path = requestPath;

/**
 * The API's edge, in front of every route (registered before the routes are built):
 * - CORS first (see registerCors); a bare OPTIONS is 204 with `Allow`; a method other than GET,
 *   HEAD or OPTIONS is 405 with `Allow`;
 * - a request that declares a body (Content-Length > 0 or Transfer-Encoding) is 413 at once, and
 *   its connection closed: nothing here reads bodies, so a slow body could otherwise pin the
 *   connection (Fastify never reads the body of a GET);
 * - every response says `X-Content-Type-Options: nosniff` and carries a CSP (strict for data, the
 *   Swagger UI's own for /docs, the explorer page's for / and /explorer/*);
 * - back-pressure (@fastify/under-pressure): 503 with Retry-After while the event loop lags more
 *   than API_MAX_EVENT_LOOP_DELAY_MS, except liveness and metrics;
 * - an optional per-client rate limit (@fastify/rate-limit, API_RATE_LIMIT_MAX per
 *   API_RATE_LIMIT_WINDOW_SECONDS): 429 with Retry-After; probes are exempt.
 */
export async function registerEdge(app: NestFastifyApplication, config: ApiConfig): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // First: preflights are answered before anything else, and every later answer (405, 413, 429, 503) carries CORS headers.
  await registerCors(app, config);
  fastify.addHook('onRequest', (request, reply, done) => {
    // With CORS on, @fastify/cors has answered every OPTIONS already; with it off, say what is allowed.
    if (request.method === 'OPTIONS') return void reply.code(204).header('allow', ALLOWED_METHODS).header('content-length', '0').send();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return void sendErrorBody(
        reply.header('allow', ALLOWED_METHODS),
        toErrorBody(new HttpException(`Method ${request.method.slice(0, 16)} is not allowed; allowed: ${ALLOWED_METHODS}`, 405)),
      );
    }
    const length = request.headers['content-length'];
    if ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined) {
      return void sendErrorBody(reply.header('connection', 'close'), toErrorBody(new HttpException('This API takes no request body', 413)));
    }
    done();
  });
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const p = path(request);
    void reply.header('x-content-type-options', 'nosniff').header('content-security-policy', cspFor(p));
    done(null, payload);
  });
  if (config.API_MAX_EVENT_LOOP_DELAY_MS > 0) {
    await app.register(underPressure as never, {
      maxEventLoopDelay: config.API_MAX_EVENT_LOOP_DELAY_MS,
      retryAfter: 1,
      pressureHandler: (request: FastifyRequest, reply: FastifyReply) => {
        if (ALWAYS_ANSWERED.has(path(request))) return undefined; // go on
        // Returned, not sent: under-pressure sends what the handler returns.
        const body = toErrorBody(new RetryLaterException(1));
        void reply.code(body.statusCode).header('retry-after', '1').header('content-type', JSON_CONTENT_TYPE);
        return JSON.stringify(body);
      },
    });
  }
  if (config.API_RATE_LIMIT_MAX > 0) {
    await app.register(rateLimit as never, {
      global: true,
      max: config.API_RATE_LIMIT_MAX,
      timeWindow: config.API_RATE_LIMIT_WINDOW_SECONDS * 1000,
      allowList: (request: FastifyRequest) => PROBES.has(path(request)),
      // Thrown by the plugin: the exception filter writes it in the one error shape (Retry-After is already set).
      errorResponseBuilder: (_request: FastifyRequest, context: { after: string; max: number }) =>
        new HttpException(
          `Rate limit exceeded: at most ${context.max} requests per ${config.API_RATE_LIMIT_WINDOW_SECONDS} s per client; retry in ${context.after}`,
          429,
        ),
    });
  }
}
