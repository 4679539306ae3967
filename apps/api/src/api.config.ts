import { z } from 'zod';
import { envBool, envInt, postgresUrl } from '@hadron/platform/config/env';

/** Variables of the API process (validated once at boot with parseEnv; see .env.example). */
export const apiEnvShape = {
  /**
   * Optional: a read replica (hot standby) of DATABASE_URL that the API reads from; DATABASE_URL
   * still migrates. The indexer and projector never read it: they write and checkpoint on the primary.
   */
  DATABASE_READ_URL: postgresUrl.optional(),
  PORT: envInt(1, 65535, 3000),
  HOST: z.string().min(1, 'must not be empty').default('0.0.0.0'),
  /** /health/ready: every projector may be at most this many events behind the log… */
  READY_MAX_LAG: envInt(0, Number.MAX_SAFE_INTEGER, 1000),
  /** …and must have published its lag within this many seconds. */
  READY_MAX_STALENESS_S: envInt(1, 86_400, 30),
  /** Reading from a replica: not ready while it replays WAL more than this many seconds behind. */
  READY_MAX_REPLICA_LAG_S: envInt(0, 86_400, 30),
  /** How often the pool list checks whether projections advanced (then reloads its snapshot). */
  POOL_LIST_REFRESH_MS: envInt(50, 600_000, 1000),
  /**
   * On SIGTERM: /health/ready answers 503 and the API keeps serving this long (so a load balancer
   * stops routing to it) before it stops accepting. 0 = close at once. Keep it well under the drain
   * deadline (SHUTDOWN_DEADLINE_SECONDS) and the orchestrator's kill timeout.
   */
  API_SHUTDOWN_GRACE_SECONDS: envInt(0, 600, 5),

  // The HTTP edge (README "Security"; SECURITY.md). This API takes no request bodies.
  /** A request (headers and any body) must arrive whole within this long, or its connection is closed. */
  API_REQUEST_TIMEOUT_MS: envInt(1000, 600_000, 10_000),
  /** The request line and headers must arrive within this long (at most API_REQUEST_TIMEOUT_MS: the smaller applies). */
  API_HEADERS_TIMEOUT_MS: envInt(1000, 600_000, 5_000),
  /** An idle kept-alive connection is closed after this long; keep it above the load balancer's idle timeout. */
  API_KEEP_ALIVE_TIMEOUT_MS: envInt(1000, 600_000, 72_000),
  /** Units of per-pool queries (fees, midprice and volume history) running at once (HeavyQueryGate, unitsFor); the pool list never waits for them. */
  API_HEAVY_CONCURRENCY: envInt(1, 100_000, 64),
  /** Per-pool queries waiting for a slot at most; beyond, 503 with Retry-After. */
  API_HEAVY_QUEUE: envInt(0, 100_000, 64),
  /**
   * Round trips of per-pool queries (fees, midprice history) to the database at once; queries that
   * arrive while that many run go together in the next (ReadDb.batched). 0 = every query its own
   * round trip at once. Raise it with the database's cores.
   */
  API_QUERY_BATCHES: envInt(0, 1_000, 2),
  /** Back-pressure: 503 with Retry-After while the event loop's mean delay exceeds this. 0 = off. */
  API_MAX_EVENT_LOOP_DELAY_MS: envInt(0, 60_000, 500),
  /** Per-client rate limit: requests per API_RATE_LIMIT_WINDOW_SECONDS per client address. 0 = off (the default). */
  API_RATE_LIMIT_MAX: envInt(0, 10_000_000, 0),
  API_RATE_LIMIT_WINDOW_SECONDS: envInt(1, 86_400, 60),
  /** Behind a proxy or load balancer: take the client address from X-Forwarded-For (rate limits key on it). */
  API_TRUST_PROXY: envBool(false),
  // For browsers and HTTP clients (README "HTTP for clients").
  /**
   * CORS: `*` (the default) lets any web page read the API; a comma-separated list of origins
   * (`https://app.example.com,https://example.org`) only those; `none` turns CORS off.
   */
  API_CORS_ORIGINS: z
    .string()
    .trim()
    .default('*')
    .transform((v) =>
      v === '*'
        ? '*'
        : v === 'none' || v === ''
          ? false
          : v
              .split(',')
              .map((o) => o.trim())
              .filter((o) => o !== ''),
    )
    .refine(
      (v) => v === '*' || v === false || v.every((o) => /^https?:\/\/[^/\s]+$/.test(o)),
      'must be *, none, or a comma-separated list of origins such as https://app.example.com',
    ),
  /** Responses at least this large are compressed (br or gzip, as the client accepts); smaller ones are not worth it. */
  API_COMPRESS_MIN_BYTES: envInt(0, 100_000_000, 1024),
  /**
   * Response cache of the per-pool endpoints (apps/api/README.md, "Response cache"): at most this
   * many answers (least recently used dropped first); 0 turns it off.
   */
  API_RESPONSE_CACHE_MAX_ENTRIES: envInt(0, 10_000_000, 10_000),
  /** …and at most about this many bytes of bodies. */
  API_RESPONSE_CACHE_MAX_BYTES: envInt(0, 8_000_000_000, 64 * 1024 * 1024),
  /** Serve the OpenAPI document and Swagger UI at /docs, /docs-json, /docs-yaml. */
  API_DOCS: envBool(true),
  /** Serve the explorer page at / (and its bundle at /explorer/*). */
  API_EXPLORER: envBool(true),
  /**
   * A separate port for /metrics and readiness details (like the indexer's and projector's
   * OPS_PORT). Unset: /metrics and the details are on the API port, as before.
   */
  API_OPS_PORT: envInt(0, 65535, 0).optional(),
  API_OPS_HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
};
export const apiEnvSchema = z.object(apiEnvShape);
export type ApiConfig = z.infer<typeof apiEnvSchema>;
