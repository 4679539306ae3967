import { clusterStatus, isReady, type StatusInput } from './cluster-status';

const base: StatusInput = {
  cluster: 'devnet',
  now: 100_000,
  headSlot: 100,
  cursorSlot: 100,
  backfillDone: true,
  gaps: 0,
  pools: 2,
  lastError: null,
  wrongChain: null,
  cycleFailures: 0,
  lastProgressAt: 99_000,
  active: true,
  heldPools: 0,
  indexedBlockTime: 90,
  rpcFailingSeconds: 0,
};
const settings = { readyMaxSlotLag: 10, readyMaxStallMs: 5_000, readyMaxCycleErrors: 3, readyMaxRpcFailingMs: 10_000, readyMaxLagSeconds: 0 };

describe('cluster status and readiness', () => {
  it.each([
    ['at the head', {}, { slotLag: 0, lagSeconds: 0, secondsSinceProgress: 1 }],
    ['behind the head', { cursorSlot: 95 }, { slotLag: 5, lagSeconds: 10 }],
    ['no cursor yet', { cursorSlot: null }, { slotLag: null }],
    ['behind, freshness unknown', { cursorSlot: 95, indexedBlockTime: null }, { lagSeconds: null }],
  ])('given %s, then the status reads as listed', (_given, over, then) => {
    expect(clusterStatus({ ...base, ...over })).toMatchObject(then);
  });

  it.each([
    ['a healthy indexer at the head', {}, 1_000, true],
    ['a standby', { active: false }, 1_000, false],
    ['a backfill in progress', { backfillDone: false }, 1_000, false],
    ['too far behind', { cursorSlot: 80 }, 1_000, false],
    ['an open gap', { gaps: 1 }, 1_000, false],
    ['a held pool', { heldPools: 1 }, 1_000, false],
    ['failing cycles', { cycleFailures: 3 }, 1_000, false],
    ['behind and stalled', { cursorSlot: 99 }, 6_000, false],
    ['at the head, no progress for long (idle)', {}, 6_000, true],
    ['an RPC down for long', { rpcFailingSeconds: 11 }, 1_000, false],
    ['an RPC serving another chain, at the head of what was indexed', { wrongChain: 'the RPC serves another chain' }, 1_000, false],
  ])('given %s, then ready is %s', (_given, over, msSinceProgress, then) => {
    expect(isReady(clusterStatus({ ...base, ...over }), msSinceProgress, settings)).toBe(then);
  });
});
