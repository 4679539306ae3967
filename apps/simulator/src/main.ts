import { createLogger, envBool, envInt, parseEnv, runProcess } from '@hadron/platform';
import { z } from 'zod';
import { FAULT_KINDS, type FaultKind } from './rpc/faults';
import { DEFAULT_MARKET_OPTIONS } from './market/market-generator';
import { startSimulator } from './simulator';

/**
 * The simulated Solana cluster as a process: `node dist/apps/simulator/src/main.js`.
 * Serves http://SIM_HOST:SIM_PORT/mainnet-beta and /devnet, and their PubSub websockets on
 * ws://SIM_HOST:(SIM_PORT + 1)/mainnet-beta and /devnet, until SIGTERM.
 */

const rate = (fallback: number) => z.coerce.number({ invalid_type_error: 'must be a number' }).min(0, 'must be ≥ 0').default(fallback);

const envSchema = z.object({
  SIM_PORT: envInt(0, 65535, 8899),
  SIM_HOST: z.string().default('127.0.0.1'),
  SIM_SEED: z.string().min(1).default('hadron'),
  SIM_POOLS: envInt(1, 256, DEFAULT_MARKET_OPTIONS.pools),
  SIM_HISTORY_SECONDS: envInt(1, 7 * 24 * 3600, 1800),
  SIM_LIVE: envBool(true),
  SIM_SLOT_MS: envInt(10, 10_000, 400),
  SIM_MIDPRICE_RATE: rate(3),
  SIM_SWAP_RATE: rate(0.6),
  SIM_FAULT_RATE: rate(0).refine((v) => v <= 1, 'must be a number in 0..1'),
  SIM_FAULT_KINDS: z
    .string()
    .default(FAULT_KINDS.join(','))
    .refine((v) => v.split(',').every((k) => (FAULT_KINDS as readonly string[]).includes(k.trim())), `comma-separated subset of ${FAULT_KINDS.join(',')}`)
    .transform((v) => v.split(',').map((k) => k.trim() as FaultKind)),
  SIM_HISTORY_END_MS: z.coerce.number().int().positive().optional(),
  SIM_NEW_POOL_AFTER_SECONDS: envInt(1, 7 * 24 * 3600, 1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

let log: ReturnType<typeof createLogger> | undefined;
const logger = () => (log ??= createLogger('simulator'));

runProcess('simulator', logger, async () => {
  const env = parseEnv(envSchema);
  log = createLogger('simulator', env.LOG_LEVEL);
  const started = Date.now();
  const sim = await startSimulator({
    port: env.SIM_PORT,
    host: env.SIM_HOST,
    seed: env.SIM_SEED,
    pools: env.SIM_POOLS,
    historySeconds: env.SIM_HISTORY_SECONDS,
    historyEndTimeMs: env.SIM_HISTORY_END_MS,
    live: env.SIM_LIVE,
    slotMs: env.SIM_SLOT_MS,
    midpriceUpdatesPerSecond: env.SIM_MIDPRICE_RATE,
    swapsPerSecond: env.SIM_SWAP_RATE,
    newPoolAfterSeconds: env.SIM_NEW_POOL_AFTER_SECONDS ?? null,
    faults: { rate: env.SIM_FAULT_RATE, kinds: env.SIM_FAULT_KINDS },
  });
  const stats = Object.fromEntries(
    (['mainnet-beta', 'devnet'] as const).map((c) => {
      const gt = sim.groundTruth(c);
      return [c, { pools: gt.pools.length, swaps: gt.swaps.length, oracleUpdates: gt.oracle_updates.length, headSlot: gt.head_slot }];
    }),
  );
  logger().info(
    { urls: sim.urls, wsUrls: sim.wsUrls, stats, generatedInMs: Date.now() - started, live: env.SIM_LIVE, faultRate: env.SIM_FAULT_RATE },
    'simulated cluster ready',
  );
  for (const [cluster, url] of Object.entries(sim.urls)) {
    process.stdout.write(`${cluster}: ${url}  websocket ${sim.wsUrls[cluster as keyof typeof sim.wsUrls]}  (ground truth: GET ${url}/ground-truth)\n`);
  }
  return { stop: () => sim.stop() };
});
