import type { CommitmentLags } from './ledger/ledger';
import type { GroundTruth } from './market/ground-truth';
import { DEFAULT_MARKET_OPTIONS, SimulatedMarket, type MarketOptions } from './market/market-generator';
import { FaultInjector, NO_FAULTS, type FaultOptions } from './rpc/faults';
import type { ClusterContext } from './rpc/rpc-methods';
import { parseFaultOptions, startRpcServer, type RpcServer } from './rpc/rpc-server';
import { startWsServer, type WsServer } from './rpc/ws-server';

export const SIM_CLUSTERS = ['mainnet-beta', 'devnet'] as const;
export type SimCluster = (typeof SIM_CLUSTERS)[number];

export interface SimulatorOptions {
  /** 0 picks a free port (tests). Default 8899. */
  port?: number;
  host?: string;
  /** Seeds both clusters (each with its own stream, so their markets differ). */
  seed?: string;
  pools?: number;
  historySeconds?: number;
  /** Unix ms where the history ends; default now. Fix it for byte-identical runs. */
  historyEndTimeMs?: number;
  /** Keep producing slots in real time after the history. Default true. */
  live?: boolean;
  slotMs?: number;
  midpriceUpdatesPerSecond?: number;
  swapsPerSecond?: number;
  /** An extra pool is created this many seconds into live mode (both clusters); default never. */
  newPoolAfterSeconds?: number | null;
  /** Per-cluster overrides of the market options. */
  clusters?: Partial<Record<SimCluster, Partial<Omit<MarketOptions, 'cluster'>>>>;
  faults?: Partial<FaultOptions>;
  /**
   * How many slots `confirmed` / `finalized` trail the newest slot for live slots (the generated
   * history is final at once). Default {confirmed: 1, finalized: 32}, as on a real cluster.
   */
  commitmentLags?: CommitmentLags;
}

export interface RunningSimulator {
  urls: Record<SimCluster, string>;
  port: number;
  /** PubSub websocket per cluster, on port + 1 (where web3.js looks by default): logsSubscribe, slotSubscribe. */
  wsUrls: Record<SimCluster, string>;
  /** Live websocket subscriptions on a cluster (for tests waiting on a client's subscribe). */
  websocketSubscriptions(cluster: SimCluster): number;
  groundTruth(cluster: SimCluster): GroundTruth;
  /** The generated market (ledger, pools) — for tests. */
  market(cluster: SimCluster): SimulatedMarket;
  /** Produces `slots` more slots now (live or not): deterministic growth for tests. */
  advance(cluster: SimCluster | 'all', slots: number): void;
  setFaults(cluster: SimCluster | 'all', faults: Partial<FaultOptions>): void;
  stop(): Promise<void>;
}

/** Builds (and generates the history of) one cluster's market without any server. */
export function generateMarket(options: Partial<MarketOptions> & Pick<MarketOptions, 'cluster' | 'seed'>): SimulatedMarket {
  const market = new SimulatedMarket({ ...DEFAULT_MARKET_OPTIONS, historyEndTimeMs: Date.now(), ...options });
  market.generateHistory();
  return market;
}

const MAX_CATCH_UP_SLOTS_PER_TICK = 25;

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const seed = options.seed ?? 'hadron';
  const historyEndTimeMs = options.historyEndTimeMs ?? Date.now();
  const live = options.live ?? true;
  const contexts = new Map<string, ClusterContext>();
  for (const cluster of SIM_CLUSTERS) {
    const market = generateMarket({
      cluster,
      seed,
      historyEndTimeMs,
      ...(options.pools !== undefined ? { pools: options.pools } : {}),
      ...(options.historySeconds !== undefined ? { historySeconds: options.historySeconds } : {}),
      ...(options.slotMs !== undefined ? { slotMs: options.slotMs } : {}),
      ...(options.midpriceUpdatesPerSecond !== undefined ? { midpriceUpdatesPerSecond: options.midpriceUpdatesPerSecond } : {}),
      ...(options.swapsPerSecond !== undefined ? { swapsPerSecond: options.swapsPerSecond } : {}),
      ...(options.newPoolAfterSeconds !== undefined ? { newPoolAfterSeconds: options.newPoolAfterSeconds } : {}),
      ...options.clusters?.[cluster],
    });
    market.ledger.setCommitmentLags(live ? (options.commitmentLags ?? { confirmed: 1, finalized: 32 }) : { confirmed: 0, finalized: 0 });
    const faults = new FaultInjector(parseFaultOptions({ ...options.faults }, { ...NO_FAULTS, seed: `${seed}/${cluster}` }));
    contexts.set(cluster, { name: cluster, market, faults });
  }
  const { server, ws } = await listen(contexts, options.host ?? '127.0.0.1', options.port ?? 8899);
  const ctx = (cluster: SimCluster) => contexts.get(cluster)!;

  let timer: NodeJS.Timeout | undefined;
  if (live) {
    // Slot n is due at its own time; producing by the wall clock keeps block times ≈ now.
    const tick = () => {
      for (const { market } of contexts.values()) {
        const clock = market.ledger.clock;
        const due = clock.firstSlot + Math.floor((Date.now() - clock.firstSlotTimeMs) / clock.slotMs);
        for (let n = 0; market.ledger.head < due && n < MAX_CATCH_UP_SLOTS_PER_TICK; n++) market.produceSlot();
      }
      ws.flush();
    };
    timer = setInterval(tick, Math.max(20, Math.floor((options.slotMs ?? DEFAULT_MARKET_OPTIONS.slotMs) / 2)));
    timer.unref();
  }

  const targets = (cluster: SimCluster | 'all') => (cluster === 'all' ? [...SIM_CLUSTERS] : [cluster]);
  return {
    urls: { 'mainnet-beta': server.url('mainnet-beta'), devnet: server.url('devnet') },
    port: server.port,
    wsUrls: { 'mainnet-beta': ws.url('mainnet-beta'), devnet: ws.url('devnet') },
    websocketSubscriptions: (cluster) => ws.subscriptions(cluster),
    groundTruth: (cluster) => ctx(cluster).market.groundTruth(),
    market: (cluster) => ctx(cluster).market,
    advance: (cluster, slots) => {
      for (const c of targets(cluster)) for (let i = 0; i < slots; i++) ctx(c).market.produceSlot();
      ws.flush();
    },
    setFaults: (cluster, faults) => {
      for (const c of targets(cluster)) ctx(c).faults.configure(parseFaultOptions(faults, ctx(c).faults.current));
    },
    stop: async () => {
      if (timer) clearInterval(timer);
      await ws.close();
      await server.close();
    },
  };
}

/**
 * JSON-RPC on `port`, PubSub on `port + 1` (web3.js's default for an endpoint with a port). With
 * port 0 the pair is picked together: a free port whose successor is free too.
 */
async function listen(contexts: ReadonlyMap<string, ClusterContext>, host: string, port: number): Promise<{ server: RpcServer; ws: WsServer }> {
  for (let attempt = 0; ; attempt++) {
    const server = await startRpcServer(contexts, host, port);
    try {
      return { server, ws: await startWsServer(contexts, host, server.port + 1) };
    } catch (e) {
      await server.close();
      const taken = (e as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!taken || port !== 0 || attempt >= 20) throw new Error(`cannot listen for websockets on ${host}:${server.port + 1}: ${(e as Error).message}`);
    }
  }
}
