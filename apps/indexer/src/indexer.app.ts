import type { RpcObserver } from './source/json-rpc-transport';
import { everyWarningRepeats, publishStatus, redactUrl, type Logger, type Running, type Storage } from '@hadron/platform';
import { clusterSettings, type IndexerConfig } from './config/indexer.config';
import { HADRON_PROGRAMS, PoolReader } from './discovery/pool-reader';
import { IndexerMetrics } from './metrics/indexer-metrics';
import { ClusterIndexer, type ClusterStatus } from './pipeline/cluster-indexer';
import { EventPublisher } from './publish/event-publisher';
import { subscribeProgramLogs, type LiveWakeup } from './source/live-wakeup';
import { SolanaRpc } from './source/solana-rpc';
import { IndexerStore } from './store/indexer-store';
import { shippedTokenList } from './tokens/token-list';

export interface RunningIndexer extends Running {
  metrics: IndexerMetrics;
  /** Ready = every cluster this process indexes backfilled, within INDEXER_READY_MAX_SLOT_LAG of its head, with an empty gap ledger and no held pool; a cluster it stands by for says `role: 'standby'` (and is ready). */
  ready(): Promise<{ ready: boolean; detail: unknown }>;
  status(): ClusterStatus[];
}

const STATUS_EVERY_MS = 2000;

/**
 * Runs one ClusterIndexer per configured cluster against the opened storage: events go to the
 * event log, progress to the indexer's tables, lag to component_status (`indexer:<cluster>`).
 */
export async function startIndexer(storage: Storage, config: IndexerConfig, log: Logger, opts: { metrics?: IndexerMetrics } = {}): Promise<RunningIndexer> {
  const metrics = opts.metrics ?? new IndexerMetrics();
  const producer = await storage.eventLog.producer();
  const sink = new EventPublisher(producer, undefined, (cluster, seconds) => metrics.stage(cluster, 'append_encode', seconds));
  const store = new IndexerStore(storage.pool);
  const indexers: ClusterIndexer[] = [];
  const wakeups: LiveWakeup[] = [];
  const base = log.child({ component: 'indexer' });
  metrics.watchRoles(() => indexers.map((i) => ({ cluster: i.status().cluster, active: i.status().active })));

  for (const cluster of config.INDEXER_CLUSTERS) {
    const settings = clusterSettings(config, cluster);
    // Endpoints are logged by redactUrl: provider URLs carry API keys (`?api-key=`, a path token, userinfo).
    const rpcShown = redactUrl(settings.rpcUrl);
    const observer = warnOnRetries(metrics.rpcObserver(cluster), base.child({ cluster, rpc: rpcShown }));
    const rpc = new SolanaRpc({ ...settings, url: settings.rpcUrl, observer });
    const indexer = new ClusterIndexer({ settings, rpc, reader: new PoolReader(rpc, shippedTokenList), store, sink, metrics, log: base });
    await indexer.start();
    indexers.push(indexer);
    if (settings.wsUrl) {
      wakeups.push(
        subscribeProgramLogs(
          settings.rpcUrl,
          settings.wsUrl,
          HADRON_PROGRAMS.map((p) => p.programId),
          () => indexer.poke(),
          (e) => base.warn({ cluster, err: e.message }, 'websocket wake-up failed; polling only'),
        ),
      );
    }
    base.info(
      {
        cluster,
        rpc: rpcShown,
        ws: settings.wsUrl === null ? undefined : redactUrl(settings.wsUrl),
        commitment: settings.commitment,
        start: settings.start,
        maxResponseBytes: settings.maxResponseBytes,
      },
      'indexing',
    );
  }

  // The freshness every reader judges by (the API's readiness, in one process or split mode): only
  // the active indexer of a cluster speaks for it — a standby's "lag 0" must never overwrite it.
  const publish = async () => {
    for (const i of indexers) {
      const s = i.status();
      if (!s.active) continue;
      await publishStatus(storage.pool, `indexer:${s.cluster}`, BigInt(s.slotLag ?? s.headSlot), { ...s, ready: i.ready() });
    }
  };
  const timer = everyWarningRepeats(STATUS_EVERY_MS, publish, base, 'could not publish indexer status');

  return {
    metrics,
    status: () => indexers.map((i) => i.status()),
    ready: async () => {
      const detail = indexers.map((i) => readiness(i));
      return { ready: detail.every((d) => d.ready), detail };
    },
    stop: async () => {
      clearInterval(timer);
      for (const w of wakeups) await w.close();
      await Promise.all(indexers.map((i) => i.stop()));
      await producer.close();
      await publish().catch(() => undefined);
    },
  };
}

/**
 * A cluster's part of the process's readiness. The active indexer: its freshness, ready when
 * current. A standby says only that it stands by — it has no head or lag of its own (no "lag 0")
 * — and counts as ready: it is healthy and takes over when the active one stops. Nothing routes
 * traffic to an indexer; the cluster's freshness is what the active one publishes (component_status).
 */
function readiness(
  i: ClusterIndexer,
): ({ role: 'active'; ready: boolean } & ClusterStatus) | { cluster: ClusterStatus['cluster']; role: 'standby'; ready: true; note: string } {
  const s = i.status();
  if (!s.active)
    return { cluster: s.cluster, role: 'standby', ready: true, note: 'another indexer process holds this cluster; this one takes over when it stops' };
  return { role: 'active', ...s, ready: i.ready() };
}

/**
 * Retries are counted in metrics; an operator reading logs must also see that the RPC is failing
 * (unreachable, rate limiting, erroring) — at most one line per 10 s per cluster, with the counts.
 */
function warnOnRetries(inner: RpcObserver, log: Logger, everyMs = 10_000): RpcObserver {
  let last = 0;
  let since = new Map<string, number>();
  return {
    ...inner,
    retry: (method, kind) => {
      inner.retry(method, kind);
      const key = `${method}:${kind}`;
      since.set(key, (since.get(key) ?? 0) + 1);
      const now = Date.now();
      if (now - last < everyMs) return;
      log.warn({ retries: Object.fromEntries(since) }, 'RPC calls failing; retrying with backoff');
      last = now;
      since = new Map();
    },
  };
}
