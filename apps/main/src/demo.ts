/**
 * `npm run demo`: the one-process app against the local simulated cluster, fully offline.
 * The simulator serves a small synthetic Hadron market (history short enough to backfill in well
 * under a minute) and keeps producing slots live; the indexer backfills then tails it.
 */
import { z } from 'zod';
import { createLogger, envInt, parseEnv, runProcess } from '@hadron/platform';
import { DEFAULT_MARKET_OPTIONS, startSimulator } from '../../simulator/src/index';
import { mainEnvSchema, startAll } from './compose';

const demoSchema = z.object({
  SIM_PORT: envInt(0, 65535, 8899),
  SIM_SEED: z.string().min(1).default('hadron-demo'),
  // The simulator's default: every pool template of its catalog (Token-2022 and 0-decimal tokens included).
  SIM_POOLS: envInt(1, 256, DEFAULT_MARKET_OPTIONS.pools),
  SIM_HISTORY_SECONDS: envInt(60, 7 * 24 * 3600, 900),
});

runProcess(
  'hadron-demo',
  () => createLogger('hadron-demo'),
  async () => {
    const demo = parseEnv(demoSchema);
    const log = createLogger('hadron-demo', process.env.LOG_LEVEL ?? 'info');
    const sim = await startSimulator({ port: demo.SIM_PORT, seed: demo.SIM_SEED, pools: demo.SIM_POOLS, historySeconds: demo.SIM_HISTORY_SECONDS });
    log.info({ urls: sim.urls, wsUrls: sim.wsUrls }, 'simulated cluster serving');
    // The demo keeps its own data directory so it never mixes with a real index; its index starts anew at each start (below).
    const config = parseEnv(mainEnvSchema, {
      PG_DATA_DIR: '.data/demo-postgres',
      EMBEDDED_PG_PORT: '54319',
      // No load balancer in front of a local demo: Ctrl-C stops it without the API's rolling-restart grace.
      API_SHUTDOWN_GRACE_SECONDS: '0',
      ...process.env,
      RPC_URL_MAINNET_BETA: sim.urls['mainnet-beta'],
      RPC_URL_DEVNET: sim.urls.devnet,
      // The simulator's PubSub websockets: logsSubscribe wakes the live tail as soon as a transaction lands.
      RPC_WS_URL_MAINNET_BETA: sim.wsUrls['mainnet-beta'],
      RPC_WS_URL_DEVNET: sim.wsUrls.devnet,
      // The whole simulated history; a local RPC needs no rate limit; exact positions in block.
      INDEXER_START_SLOT: '0',
      RPC_RPS: process.env.RPC_RPS ?? '100000',
      INDEXER_TX_POSITIONS: 'all',
    });
    // The simulated chain is generated anew at every start (its history ends now): another chain
    // (another genesis hash), which an index built from the last one refuses. So the demo's own
    // index starts anew with it; a data directory the user names (PG_DATA_DIR) or a DATABASE_URL
    // is left as it is.
    const running = await startAll(config, log, { freshEmbeddedDatabase: process.env.PG_DATA_DIR === undefined });
    log.info(`demo ready: http://127.0.0.1:${running.port}/pools — try /pools/<address>/fees?interval=1h${config.API_DOCS ? ' (docs at /docs)' : ''}`);
    return {
      stop: async () => {
        await running.stop();
        await sim.stop();
      },
    };
  },
);
