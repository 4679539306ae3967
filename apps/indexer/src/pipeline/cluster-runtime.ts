import type { Cluster } from '@hadron/contracts';
import type { Logger } from '@hadron/platform';
import type { ClusterSettings } from '../config/indexer.config';
import type { DecodeContext } from '../decode';
import type { PoolStatic } from '../discovery/pool-accounts';
import type { PoolReader } from '../discovery/pool-reader';
import type { IndexerMetrics } from '../metrics/indexer-metrics';
import type { EventSink } from '../publish/event-publisher';
import type { SolanaRpc } from '../source/solana-rpc';
import type { ClusterProgress, FencedTx, IndexerStore } from '../store/indexer-store';
import type { IndexerObserver } from './indexer-observer';

export interface ClusterIndexerDeps {
  settings: ClusterSettings;
  rpc: SolanaRpc;
  reader: PoolReader;
  store: IndexerStore;
  sink: EventSink;
  metrics: IndexerMetrics;
  log: Logger;
  now?: () => number;
}

/** What the indexer's steps share while it holds a cluster: the durable progress and what it knows beside it. */
export interface ClusterState {
  progress: ClusterProgress;
  ctx: DecodeContext;
  /** Pools discovered whose mint does not read yet: their transactions are held (held-pools.ts) until it does. */
  readonly held: Map<string, PoolStatic>;
  /** The cursor as good as reached (a poll found nothing new up to it). */
  observedThrough: number | null;
  lastProgressAt: number;
  stopping: boolean;
  snapshotDueAt: number;
  lastDiscoveryAt: number;
}

/** The cluster indexer as its steps (snapshot, gap ledger, held replay, cycle run) see it. */
export interface ClusterRuntime {
  readonly cluster: Cluster;
  readonly d: ClusterIndexerDeps;
  readonly log: Logger;
  readonly now: () => number;
  readonly observer: IndexerObserver;
  readonly state: ClusterState;
  /** An append and the writes that go with it, fenced by the cluster lease (IndexerStore.fenced). */
  fenced<T>(fn: (db: FencedTx, epoch: bigint) => Promise<T>): Promise<T>;
}
