import { createLogger } from '@hadron/platform';
import { startIndexer } from '../../apps/indexer/src/index';
import { caughtUp, readEventLog, simIndexerConfig, startRpcProxy, storageOf, useSimulatedCluster, waitFor } from './indexer-harness';

/**
 * THE WEBSOCKET WAKE-UP (RPC_WS_URL_*): with the poll as good as off (a minute), a transaction the
 * websocket announces is indexed at once — also when the announcement comes in while the indexer
 * is in the middle of a poll that read the head just before that transaction's slot (that poll
 * finds nothing; the indexer must not then sleep a whole poll interval on a notification it got).
 */

const CLUSTER = 'mainnet-beta';
const fx = useSimulatedCluster({ seed: 'live-wakeup', pools: 2, historySeconds: 30 });

/** A JSON-RPC pass-through that can hold getSignaturesForAddress answers until released. */
async function startHoldingProxy(target: string) {
  let hold: ((call: { minContextSlot?: number }) => boolean) | null = null;
  const held: Array<() => void> = [];
  const proxy = await startRpcProxy(
    target,
    () => undefined,
    async (calls) => {
      const listing = calls.length === 1 && calls[0].method === 'getSignaturesForAddress' ? calls[0] : null;
      if (listing && hold?.((listing.params?.[1] ?? {}) as { minContextSlot?: number })) await new Promise<void>((r) => held.push(r));
    },
  );
  return {
    ...proxy,
    holdWhen: (f: typeof hold) => (hold = f),
    heldCount: () => held.length,
    release: () => {
      hold = null;
      held.splice(0).forEach((r) => r());
    },
  };
}

it('indexes what the websocket announces at once, also when it lands during a poll that found nothing', async () => {
  const proxy = await startHoldingProxy(fx.sim.urls[CLUSTER]);
  try {
    const market = fx.sim.market(CLUSTER);
    market.setRates({ swapsPerSecond: 20 }); // every new slot holds swaps
    const config = simIndexerConfig(fx.sim, {
      INDEXER_CLUSTERS: CLUSTER,
      RPC_URL_MAINNET_BETA: proxy.url,
      RPC_WS_URL_MAINNET_BETA: fx.sim.wsUrls[CLUSTER],
      INDEXER_POLL_MS: '60000',
      INDEXER_REFRESH_SECONDS: '3600',
    });
    fx.indexer = await startIndexer(storageOf(fx.db), config, createLogger('live-wakeup', process.env.TEST_LOG_LEVEL ?? 'warn'));
    await waitFor('backfill', () => caughtUp(fx.db, fx.sim, CLUSTER), 60_000, 100);
    await waitFor('the websocket subscription', () => fx.sim.websocketSubscriptions(CLUSTER) > 0, 10_000);

    // 1. A new slot, announced: indexed without waiting for the (one-minute) poll.
    fx.sim.advance(CLUSTER, 1);
    await waitFor('the announced slot indexed', () => caughtUp(fx.db, fx.sim, CLUSTER), 20_000, 100);

    // 2. The poll that follows a busy one reads the head, then lists: hold its listing, announce a
    // new slot meanwhile, then let it finish (it finds nothing up to the head it read).
    const head = market.ledger.head;
    let calls = 0;
    proxy.holdWhen((p) => p.minContextSlot === head + 1 && ++calls > 2); // the second cycle at that head
    fx.sim.advance(CLUSTER, 1); // a busy cycle, then the held one
    await waitFor('a poll held while listing', () => proxy.heldCount() > 0, 20_000, 20);
    fx.sim.advance(CLUSTER, 1); // announced while that poll is in flight
    await new Promise((r) => setTimeout(r, 200)); // the notification reaches the indexer
    proxy.release();
    await waitFor('the slot announced during an idle poll indexed', () => caughtUp(fx.db, fx.sim, CLUSTER), 20_000, 100);
    const swaps = (await readEventLog(fx.db, CLUSTER)).filter((e) => e.type === 'SwapExecuted').length;
    expect(swaps).toBe(fx.sim.groundTruth(CLUSTER).swaps.length);
  } finally {
    await fx.indexer?.stop();
    fx.indexer = undefined;
    await proxy.close();
  }
}, 120_000);
