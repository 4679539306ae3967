import { z } from 'zod';
import { CLUSTERS, type Cluster } from '@hadron/contracts';
import { envInt } from '@hadron/platform';
import type { PositionsMode } from '../pipeline/chain-order';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../source/json-rpc-transport';
import type { Commitment } from '../source/solana-rpc';

/** The indexer's variables (validated once at boot; .env.example lists them). */

const httpUrl = z.string().refine((v) => /^https?:\/\/\S+$/.test(v), 'must be an http(s):// URL');
const wsUrl = z.string().refine((v) => /^wss?:\/\/\S+$/.test(v), 'must be a ws(s):// URL');
const positiveNumber = (fallback: number) => z.coerce.number({ invalid_type_error: 'must be a number' }).positive('must be > 0').default(fallback);

export const indexerEnvShape = {
  /** Clusters to index, comma-separated. */
  INDEXER_CLUSTERS: z
    .string()
    .default(CLUSTERS.join(','))
    .refine((v) => v.split(',').every((c) => (CLUSTERS as readonly string[]).includes(c.trim())), `comma-separated subset of ${CLUSTERS.join(',')}`)
    .transform((v) => [...new Set(v.split(',').map((c) => c.trim() as Cluster))]),
  RPC_URL_MAINNET_BETA: httpUrl.default('https://api.mainnet-beta.solana.com'),
  RPC_URL_DEVNET: httpUrl.default('https://api.devnet.solana.com'),
  /** Optional websocket endpoints: a logsSubscribe wakes the live tail early (polling stays the source). */
  RPC_WS_URL_MAINNET_BETA: wsUrl.optional(),
  RPC_WS_URL_DEVNET: wsUrl.optional(),
  /** JSON-RPC calls per second per endpoint (token bucket; a batch of n costs n). */
  RPC_RPS: positiveNumber(10),
  RPC_CONCURRENCY: envInt(1, 64, 4),
  RPC_TIMEOUT_MS: envInt(100, 300_000, 10_000),
  RPC_MAX_ATTEMPTS: envInt(1, 100, 6),
  RPC_RETRY_BASE_MS: envInt(1, 60_000, 250),
  RPC_RETRY_MAX_MS: envInt(1, 600_000, 10_000),
  /** getTransaction calls per JSON-RPC batch request. */
  RPC_TX_BATCH: envInt(1, 1000, 50),
  /** Largest RPC response body accepted, in bytes (default 32 MiB: why in json-rpc-transport.ts); a batch over it is split. */
  RPC_MAX_RESPONSE_BYTES: envInt(1024, 1024 * 1024 * 1024, DEFAULT_MAX_RESPONSE_BYTES),
  /** getSignaturesForAddress page size (the RPC's maximum is 1000; some providers allow less). */
  RPC_SIGNATURES_PAGE: envInt(1, 1000, 1000),
  INDEXER_COMMITMENT: z.enum(['confirmed', 'finalized']).default('confirmed'),
  /** Backfill start: a slot, or a unix time in seconds; neither = the last 24 h. */
  INDEXER_START_SLOT: envInt(0, Number.MAX_SAFE_INTEGER, 0).optional(),
  INDEXER_START_TIME: envInt(0, Number.MAX_SAFE_INTEGER, 0).optional(),
  /** Live tail: poll for new signatures this often. */
  INDEXER_POLL_MS: envInt(50, 60_000, 400),
  /** Re-read pool accounts and look for new pools at least this often. */
  INDEXER_REFRESH_SECONDS: envInt(1, 86_400, 60),
  /** Re-read the token metadata (name, symbol) of every pooled mint this often; a rename becomes a TokenMetadataChanged. */
  INDEXER_METADATA_REFRESH_SECONDS: envInt(1, 7 * 86_400, 600),
  /** Transactions per processed chunk (the cursor moves once per chunk). */
  INDEXER_CHUNK_TXS: envInt(1, 100_000, 500),
  /** Block positions (getBlock, signatures only): all slots, slots with 2+ Hadron transactions, or none. */
  INDEXER_TX_POSITIONS: z.enum(['all', 'multi', 'none']).default('multi'),
  /** How long the cursor waits for a listed transaction the RPC does not serve before recording it in the gap ledger and moving on. */
  INDEXER_GAP_GRACE_SECONDS: envInt(0, 86_400, 30),
  /** First delay before a gap-ledger transaction is fetched again (doubles, up to 10 min). */
  INDEXER_GAP_RETRY_SECONDS: envInt(1, 86_400, 30),
  /** Ready when every cluster is within this many slots of its head (and the gap ledger is empty). */
  INDEXER_READY_MAX_SLOT_LAG: envInt(0, 1_000_000, 150),
  /** Not ready while behind the head with no progress (commit, or nothing new) for this long. */
  INDEXER_READY_MAX_STALL_SECONDS: envInt(1, 86_400, 60),
  /** Not ready after this many indexing cycles in a row failed. */
  INDEXER_READY_MAX_CYCLE_ERRORS: envInt(1, 1000, 3),
  /** Not ready while the newest indexed data is older than this, behind the head (0 = slots only). */
  INDEXER_READY_MAX_LAG_SECONDS: envInt(0, 86_400, 0),
  /** Not ready while the RPC has given no good answer for this long (outages, malformed answers, rate limits). */
  INDEXER_READY_MAX_RPC_FAILING_SECONDS: envInt(1, 86_400, 30),
  /** Backfill progress line every this many seconds. */
  INDEXER_PROGRESS_SECONDS: envInt(1, 3600, 10),
};
export const indexerEnvSchema = z.object(indexerEnvShape);
export type IndexerConfig = z.infer<typeof indexerEnvSchema>;

/** Everything one cluster's indexer needs, resolved from the environment. */
export interface ClusterSettings {
  cluster: Cluster;
  rpcUrl: string;
  /** The variable that set `rpcUrl`, to name in messages about it. */
  rpcUrlVariable: 'RPC_URL_MAINNET_BETA' | 'RPC_URL_DEVNET';
  wsUrl: string | null;
  commitment: Commitment;
  rps: number;
  concurrency: number;
  timeoutMs: number;
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };
  txBatchSize: number;
  maxResponseBytes: number;
  signaturePage: number;
  start: { slot: number } | { time: number };
  pollMs: number;
  refreshMs: number;
  metadataRefreshMs: number;
  chunkTxs: number;
  positions: PositionsMode;
  gapGraceMs: number;
  gapRetryMs: number;
  readyMaxSlotLag: number;
  readyMaxStallMs: number;
  readyMaxCycleErrors: number;
  readyMaxRpcFailingMs: number;
  readyMaxLagSeconds: number;
  progressMs: number;
}

const DAY_SECONDS = 24 * 3600;

export function clusterSettings(config: IndexerConfig, cluster: Cluster, now: () => number = Date.now): ClusterSettings {
  const start =
    config.INDEXER_START_SLOT !== undefined
      ? { slot: config.INDEXER_START_SLOT }
      : { time: config.INDEXER_START_TIME ?? Math.floor(now() / 1000) - DAY_SECONDS };
  const rpcUrlVariable = cluster === 'mainnet-beta' ? 'RPC_URL_MAINNET_BETA' : 'RPC_URL_DEVNET';
  return {
    cluster,
    rpcUrl: config[rpcUrlVariable],
    rpcUrlVariable,
    wsUrl: (cluster === 'mainnet-beta' ? config.RPC_WS_URL_MAINNET_BETA : config.RPC_WS_URL_DEVNET) ?? null,
    commitment: config.INDEXER_COMMITMENT,
    rps: config.RPC_RPS,
    concurrency: config.RPC_CONCURRENCY,
    timeoutMs: config.RPC_TIMEOUT_MS,
    retry: { maxAttempts: config.RPC_MAX_ATTEMPTS, baseDelayMs: config.RPC_RETRY_BASE_MS, maxDelayMs: config.RPC_RETRY_MAX_MS },
    txBatchSize: config.RPC_TX_BATCH,
    maxResponseBytes: config.RPC_MAX_RESPONSE_BYTES,
    signaturePage: config.RPC_SIGNATURES_PAGE,
    start,
    pollMs: config.INDEXER_POLL_MS,
    refreshMs: config.INDEXER_REFRESH_SECONDS * 1000,
    metadataRefreshMs: config.INDEXER_METADATA_REFRESH_SECONDS * 1000,
    chunkTxs: config.INDEXER_CHUNK_TXS,
    positions: config.INDEXER_TX_POSITIONS,
    gapGraceMs: config.INDEXER_GAP_GRACE_SECONDS * 1000,
    gapRetryMs: config.INDEXER_GAP_RETRY_SECONDS * 1000,
    readyMaxSlotLag: config.INDEXER_READY_MAX_SLOT_LAG,
    readyMaxStallMs: config.INDEXER_READY_MAX_STALL_SECONDS * 1000,
    readyMaxCycleErrors: config.INDEXER_READY_MAX_CYCLE_ERRORS,
    readyMaxRpcFailingMs: config.INDEXER_READY_MAX_RPC_FAILING_SECONDS * 1000,
    readyMaxLagSeconds: config.INDEXER_READY_MAX_LAG_SECONDS,
    progressMs: config.INDEXER_PROGRESS_SECONDS * 1000,
  };
}
