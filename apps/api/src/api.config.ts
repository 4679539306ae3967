import { z } from 'zod';
import { envInt } from '@hadron/platform/config/env';

/** Variables of the API process (validated once at boot with parseEnv; see .env.example). */
export const apiEnvShape = {
  PORT: envInt(1, 65535, 3000),
  HOST: z.string().min(1, 'must not be empty').default('0.0.0.0'),
  /** Raw edge swaps aggregated per fees query at most (see README "Fees"); more sets `truncated`. */
  FEES_SWAP_CAP: envInt(1, 10_000_000, 20_000),
  /** /health/ready: every projector may be at most this many events behind the log… */
  READY_MAX_LAG: envInt(0, Number.MAX_SAFE_INTEGER, 1000),
  /** …and must have published its lag within this many seconds. */
  READY_MAX_STALENESS_S: envInt(1, 86_400, 30),
  /** How often the pool list checks whether projections advanced (then reloads its snapshot). */
  POOL_LIST_REFRESH_MS: envInt(50, 600_000, 1000),
  /**
   * On SIGTERM: /health/ready answers 503 and the API keeps serving this long (so a load balancer
   * stops routing to it) before it stops accepting. 0 = close at once. Keep it well under the drain
   * deadline (SHUTDOWN_DEADLINE_SECONDS) and the orchestrator's kill timeout.
   */
  API_SHUTDOWN_GRACE_SECONDS: envInt(0, 600, 5),
};
export const apiEnvSchema = z.object(apiEnvShape);
export type ApiConfig = z.infer<typeof apiEnvSchema>;
