import type { CycleRecord, RecordedProblem } from '../store/indexer-store';
import type { ClusterRuntime } from './cluster-runtime';
import { deriveEvents } from './derive-events';
import { EventBuilder } from './event-builder';
import { UNKNOWN_STATE, type PoolRecord } from './pool-state';
import type { SnapshotReader } from './snapshot-reader';

const HELD_REPLAY_BATCH = 200;

/**
 * Held pools this cycle announces: their held transactions, in chain order, replayed for that
 * pool alone from the oracle state in effect before the first of them, and appended. Their rows
 * go with the cycle's first commit; a crash before it replays the same events again (same ids).
 */
export async function replayHeld(
  rt: ClusterRuntime,
  snapshots: SnapshotReader,
  cycle: CycleRecord,
  pools: Map<string, PoolRecord>,
): Promise<{ released: string[]; problems: RecordedProblem[] }> {
  const released: string[] = [];
  const problems: RecordedProblem[] = [];
  for (const config of Object.keys(cycle.newPools)) {
    const r = pools.get(config);
    if (!r || !cycle.snapshot || !rt.state.held.has(config)) continue;
    released.push(config);
    const rows = await rt.d.store.heldTxs(rt.cluster, config);
    if (rows.length === 0) continue;
    const start = await snapshots.oracleAtStart(r.static, cycle.snapshot, rows[0], null);
    const alone = new Map([
      [config, { ...structuredClone(r), tracked: { ...UNKNOWN_STATE, midpriceQ32: start.midpriceQ32, spreadFactorQ32: start.spreadFactorQ32 } }],
    ]);
    const builder = new EventBuilder(rt.cluster, alone);
    for (let i = 0; i < rows.length; i += HELD_REPLAY_BATCH) {
      const batch = rows.slice(i, i + HELD_REPLAY_BATCH);
      const results = await rt.d.rpc.getTransactions(batch.map((h) => h.signature));
      const failed = results.find((res) => !res.ok);
      if (failed && !failed.ok) throw failed.failure; // a hole would misplace the pool's state: retry the cycle
      const refs = batch.map((h) => ({ signature: h.signature, slot: h.slot, blockTime: h.blockTime, txIndex: h.txIndex }));
      const out = deriveEvents(
        { refs, txs: new Map(batch.map((h, k) => [h.signature, results[k]])), problems: [] },
        { decode: rt.state.ctx, pools: alone, builder, admits: (c) => c === config, followSplitWrites: false },
      );
      problems.push(...out.problems);
      await rt.fenced((_db, epoch) => rt.d.sink.append(out.events, epoch));
      rt.observer.countEvents(out.events);
    }
    rt.log.info({ pool: config, replayed: rows.length }, 'held pool announced: its held transactions indexed');
  }
  return { released, problems };
}
