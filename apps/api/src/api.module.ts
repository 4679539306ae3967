import { HttpException, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from '@hadron/platform/logging/logger';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import type { ApiConfig } from './api.config';
import { ReadDb } from './database/read-db';
import { serveExplorer } from './explorer/serve-explorer';
import { DataFreshness } from './freshness/data-freshness';
import { ProjectionPosition } from './freshness/projection-position';
import { HealthHttpController } from './health/health.http.controller';
import { closeApiOps } from './health/listen';
import { ReadinessCheck } from './health/readiness';
import { ShutdownState } from './health/shutdown-state';
import { ApiExceptionFilter, sendErrorBody, toErrorBody } from './http/api-exception.filter';
import { registerClientHttp } from './http/client-http';
import { edgeServerOptions, registerEdge } from './http/edge';
import { HeavyQueryGate } from './http/heavy-query-gate';
import { PinoNestLogger } from './http/nest-logger';
import { registerResponseCache, ResponseCache } from './http/response-cache';
import { API_CONFIG, API_LOGGER, CLOCK, type Clock } from './http/tokens';
import { createValidationPipe } from './http/validation.pipe';
import { ApiMetrics } from './metrics/api-metrics';
import { MetricsHttpController } from './metrics/metrics.http.controller';
import { GetMidpriceHistoryHandler } from './midprice/queries/get-midprice-history/get-midprice-history.handler';
import { GetMidpriceHistoryHttpController } from './midprice/queries/get-midprice-history/get-midprice-history.http.controller';
import { buildOpenApiDocument } from './openapi/openapi.document';
import { serveOpenApi } from './openapi/swagger-ui';
import { PoolDirectory } from './pools/pool-directory';
import { PoolListSnapshot } from './pools/pool-list/pool-list.snapshot';
import { GetPoolHandler } from './pools/queries/get-pool/get-pool.handler';
import { GetPoolHttpController } from './pools/queries/get-pool/get-pool.http.controller';
import { ListPoolsHandler } from './pools/queries/list-pools/list-pools.handler';
import { ListPoolsHttpController } from './pools/queries/list-pools/list-pools.http.controller';
import { GetPoolFeesHandler } from './swaps/queries/get-pool-fees/get-pool-fees.handler';
import { GetPoolFeesHttpController } from './swaps/queries/get-pool-fees/get-pool-fees.http.controller';
import { GetVolumeHistoryHandler } from './swaps/queries/get-volume-history/get-volume-history.handler';
import { GetVolumeHistoryHttpController } from './swaps/queries/get-volume-history/get-volume-history.http.controller';

export interface ApiAppDeps {
  /** Reads the `read.*` views and `component_status`; owned (and ended) by the caller. */
  pool: Pool;
  config: ApiConfig;
  logger: Logger;
  /** Milliseconds since the epoch ("request time"); tests pin it. Default Date.now. */
  clock?: Clock;
}

@Module({})
export class ApiModule {
  static register(deps: ApiAppDeps): DynamicModule {
    const db = new ReadDb(deps.pool, deps.logger, deps.config.API_QUERY_BATCHES);
    const metrics = new ApiMetrics();
    metrics.counter(
      'hadron_api_query_round_trips_total',
      'Round trips of per-pool queries to the database (several queries may share one: API_QUERY_BATCHES)',
      () => db.batchStats.roundTrips,
    );
    metrics.counter(
      'hadron_api_query_executions_total',
      'Per-pool queries run (executions / round trips = queries per round trip)',
      () => db.batchStats.executions,
    );
    metrics.gauge('hadron_api_query_waiting', 'Per-pool queries waiting now for a round trip to the database', () => db.batchWaiting);
    return {
      module: ApiModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        ListPoolsHttpController,
        GetPoolHttpController,
        GetPoolFeesHttpController,
        GetMidpriceHistoryHttpController,
        GetVolumeHistoryHttpController,
        HealthHttpController,
        MetricsHttpController,
      ],
      providers: [
        { provide: API_CONFIG, useValue: deps.config },
        { provide: API_LOGGER, useValue: deps.logger },
        { provide: CLOCK, useValue: deps.clock ?? Date.now },
        { provide: ReadDb, useValue: db },
        { provide: ApiMetrics, useValue: metrics },
        PoolListSnapshot,
        PoolDirectory,
        ReadinessCheck,
        ShutdownState,
        HeavyQueryGate,
        DataFreshness,
        ProjectionPosition,
        ResponseCache,
        ListPoolsHandler,
        GetPoolHandler,
        GetPoolFeesHandler,
        GetMidpriceHistoryHandler,
        GetVolumeHistoryHandler,
      ],
    };
  }
}

/** Nest on Fastify with Fastify's own logging off (requests are measured by the metrics hook). */
export function createNestApp(deps: ApiAppDeps, nestLogger: PinoNestLogger | false): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: false,
    ...edgeServerOptions(deps.config),
    // Fastify's close (app.close(), at the end of drainApiApp): stop accepting, close idle keep-alive
    // connections at once, answer 503 to a request arriving on a busy one, finish those in flight.
    // (Both are Fastify 5's defaults on Node 20; the adapter passes its options through to fastify().)
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Errors Fastify raises before routing (e.g. a malformed percent-encoded path) get the one error shape too.
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      void sendErrorBody(reply, toErrorBody(new HttpException(error.message, error.statusCode && error.statusCode < 500 ? error.statusCode : 400)));
    },
  });
  return NestFactory.create<NestFastifyApplication>(ApiModule.register(deps), adapter, {
    logger: nestLogger,
    abortOnError: false,
  });
}

/**
 * Builds the API (global pipe and filter, metrics, OpenAPI at /docs and /docs-json) and
 * initialises it: the pool list is loaded before this resolves. It does not listen: the caller
 * does `await listenApi(app, config)` (PORT, and API_OPS_PORT when set) and owns `pool`. To stop it
 * without dropping requests: `drainApiApp(app, config.API_SHUTDOWN_GRACE_SECONDS * 1000)`.
 */
export async function createApiApp(deps: ApiAppDeps): Promise<NestFastifyApplication> {
  const logger = deps.logger.child({ component: 'api' });
  const app = await createNestApp({ ...deps, logger }, new PinoNestLogger(logger));
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter(logger));
  const metrics = app.get(ApiMetrics);
  const shutdown = app.get(ShutdownState);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    shutdown.noteResponse();
    done();
  });
  // Draining (drainApiApp): every response, also of a request that began before, asks the client
  // to drop its kept-alive socket to this replica; Node closes it once the response is written.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (shutdown.draining) void reply.header('connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onClose', async () => closeApiOps(app));
  // A client hanging up is routine (timeouts, navigation, load balancers): one debug line, no stack.
  fastify.addHook('onRequestAbort', (request, done) => {
    logger.debug({ method: request.method, url: request.url.slice(0, 200) }, 'client closed the connection before the answer');
    done();
  });
  await registerEdge(app, deps.config);
  await registerClientHttp(app, deps.config);
  registerResponseCache(app); // after registerClientHttp: its onSend sees the ETag and Cache-Control
  if (deps.config.API_DOCS) serveOpenApi(app, buildOpenApiDocument(app));
  if (deps.config.API_EXPLORER) serveExplorer(app);
  await app.init();
  return app;
}
