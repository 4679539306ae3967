import pino from 'pino';
import { apiEnvSchema } from '../api.config';
import type { ReadDb } from '../database/read-db';
import type { PoolListSnapshot } from '../pools/pool-list/pool-list.snapshot';
import { ReadinessCheck } from './readiness';
import { READ_CONTRACT_SIZE } from './read-contract';
import { SHUTTING_DOWN, ShutdownState } from './shutdown-state';

/** The readiness query for the read contract's missing columns (none, unless a test says otherwise). */
const CONTRACT_QUERY = 'api-readiness-contract';

/**
 * A check against a database where a devnet indexer and the pools projection are caught up, the
 * replica query answers `replica` (none: a primary) and the read contract misses `missing`.
 */
function checkCaughtUp({ replica, missing = [], env = {} }: { replica?: Record<string, unknown>; missing?: readonly string[]; env?: Record<string, string> }) {
  const caughtUp = [
    {
      component: 'indexer:devnet',
      lag: '0',
      detail: { cursorSlot: 5, headSlot: 5, slotLag: 0, lagSeconds: 0, rpcFailingSeconds: 0, backfillDone: true, ready: true },
      age_s: 1,
    },
    { component: 'projector:pools', lag: '0', detail: {}, age_s: 1 },
  ];
  const answers: Record<string, unknown[]> = { 'api-readiness-replica': replica ? [replica] : [], [CONTRACT_QUERY]: missing.map((m) => ({ missing: m })) };
  const db = { query: jest.fn(async (name: string) => answers[name] ?? caughtUp) } as unknown as ReadDb;
  const snapshot = { status: () => ({ loaded: true, pools: 3, age_s: 0.5 }) } as unknown as PoolListSnapshot;
  return new ReadinessCheck(db, snapshot, new ShutdownState(), apiEnvSchema.parse(env), pino({ level: 'silent' })).check();
}

describe('ReadinessCheck while shutting down', () => {
  const indexer = {
    cursorSlot: 500,
    indexedBlockTime: 1_764_000_000,
    headSlot: 501,
    slotLag: 1,
    lagSeconds: 0,
    rpcFailingSeconds: 0,
    backfillDone: true,
    ready: true,
  };
  const caughtUp = [
    { component: 'indexer:devnet', lag: '1', detail: indexer, age_s: 0.5 },
    { component: 'projector:swaps', lag: '0', detail: {}, age_s: 1.25 },
  ];
  const devnet = {
    cluster: 'devnet',
    ready: true,
    backfill_done: true,
    indexed_slot: 500,
    indexed_time: 1_764_000_000,
    head_slot: 501,
    lag_slots: 1,
    lag_seconds: 0,
    rpc_failing_seconds: 0,
    age_s: 0.5,
  };
  const setup = (query: () => Promise<unknown>) => {
    const db = { query: jest.fn(async (name: string) => (name === CONTRACT_QUERY ? [] : query())) } as unknown as ReadDb;
    const snapshot = { status: () => ({ loaded: true, pools: 3, age_s: 0.5 }) } as unknown as PoolListSnapshot;
    const shutdown = new ShutdownState();
    const check = new ReadinessCheck(db, snapshot, shutdown, apiEnvSchema.parse({}), pino({ level: 'silent' }));
    return { check, shutdown };
  };

  it('is ready until draining begins, then not ready at once with the reason, the rest of the body unchanged', async () => {
    const { check, shutdown } = setup(async () => caughtUp);
    const before = await check.check();
    expect(before).toEqual({
      ready: true,
      detail: {
        database: 'ok',
        replica: null,
        clusters: [devnet],
        projections: [{ component: 'projector:swaps', lag: 0, age_s: 1.3, ok: true }],
        pool_list: { loaded: true, pools: 3, age_s: 0.5 },
        reasons: [],
      },
    });
    expect(shutdown.begin()).toBe(true);
    expect(await check.check()).toEqual({ ready: false, detail: { ...before.detail, reasons: [SHUTTING_DOWN] } });
    expect(shutdown.begin()).toBe(false); // once; it never turns ready again
    expect((await check.check()).ready).toBe(false);
  });

  it('says shutting down next to the other reasons (database unreachable)', async () => {
    const { check, shutdown } = setup(async () => {
      throw new Error('connect ECONNREFUSED');
    });
    shutdown.begin();
    expect(await check.check()).toMatchObject({ ready: false, detail: { database: 'unreachable', reasons: [SHUTTING_DOWN, 'database unreachable'] } });
  });
});

describe('ReadinessCheck: freshness of every cluster', () => {
  const base = {
    cursorSlot: 100,
    indexedBlockTime: 1_764_000_000,
    headSlot: 5_000,
    slotLag: 4_900,
    lagSeconds: 1_960,
    rpcFailingSeconds: 0,
    backfillDone: false,
    gaps: 0,
    heldPools: 0,
    cycleFailures: 0,
    ready: false,
  };
  const check = (rows: unknown[], env: Record<string, string> = {}) => {
    const db = { query: jest.fn(async (name: string) => (name === CONTRACT_QUERY ? [] : rows)) } as unknown as ReadDb;
    const snapshot = { status: () => ({ loaded: true, pools: 3, age_s: 0.5 }) } as unknown as PoolListSnapshot;
    return new ReadinessCheck(db, snapshot, new ShutdownState(), apiEnvSchema.parse(env), pino({ level: 'silent' })).check();
  };
  const projector = { component: 'projector:pools', lag: '0', detail: {}, age_s: 1 };

  it.each([
    [
      'a backfilling indexer, with its lag',
      [{ component: 'indexer:mainnet-beta', lag: '4900', detail: base, age_s: 1 }],
      ['indexer:mainnet-beta not ready: backfilling, 4900 slots (1960 s) behind the head'],
    ],
    [
      'an RPC failing for a minute',
      [{ component: 'indexer:devnet', lag: '0', detail: { ...base, backfillDone: true, slotLag: 0, lagSeconds: 0, rpcFailingSeconds: 61 }, age_s: 1 }],
      ['indexer:devnet not ready: RPC failing for 61 s'],
    ],
    [
      'gaps and held pools',
      [{ component: 'indexer:devnet', lag: '0', detail: { ...base, backfillDone: true, slotLag: 0, lagSeconds: 0, gaps: 2, heldPools: 1 }, age_s: 1 }],
      ['indexer:devnet not ready: 2 transaction(s) in the gap ledger, 1 pool(s) held'],
    ],
    [
      'an indexer that stopped publishing (its ready flag is old news)',
      [{ component: 'indexer:devnet', lag: '0', detail: { ...base, ready: true }, age_s: 45 }],
      ['indexer:devnet status is 45 s old (> 30 s)'],
    ],
    [
      'an indexer refusing the chain its RPC serves (caught up on the chain it indexed)',
      [
        {
          component: 'indexer:devnet',
          lag: '0',
          detail: { ...base, backfillDone: true, slotLag: 0, lagSeconds: 0, wrongChain: 'the RPC serves another chain (genesis B) than … (genesis A)' },
          age_s: 1,
        },
      ],
      ['indexer:devnet not ready: the RPC serves another chain (genesis B) than … (genesis A)'],
    ],
    ['no indexer at all', [], ['no indexer has published its status yet']],
  ])('not ready: %s', async (_, indexers, reasons) => {
    const r = await check([...indexers, projector]);
    expect(r.ready).toBe(false);
    expect(r.detail.reasons).toEqual(reasons);
  });

  it('ready when every cluster is: the body says how fresh each is', async () => {
    const fresh = { ...base, cursorSlot: 4_999, slotLag: 1, lagSeconds: 0, backfillDone: true, ready: true };
    const r = await check([
      { component: 'indexer:devnet', lag: '1', detail: fresh, age_s: 0.26 },
      { component: 'indexer:mainnet-beta', lag: '0', detail: { ...fresh, slotLag: 0 }, age_s: 1 },
      projector,
    ]);
    expect(r.ready).toBe(true);
    expect(r.detail.clusters).toEqual([
      {
        cluster: 'devnet',
        ready: true,
        backfill_done: true,
        indexed_slot: 4_999,
        indexed_time: 1_764_000_000,
        head_slot: 5_000,
        lag_slots: 1,
        lag_seconds: 0,
        rpc_failing_seconds: 0,
        age_s: 0.3,
      },
      {
        cluster: 'mainnet-beta',
        ready: true,
        backfill_done: true,
        indexed_slot: 4_999,
        indexed_time: 1_764_000_000,
        head_slot: 5_000,
        lag_slots: 0,
        lag_seconds: 0,
        rpc_failing_seconds: 0,
        age_s: 1,
      },
    ]);
  });

  it('answers when the database does not (a hung query is unreachable, never a hung probe)', async () => {
    const db = { query: jest.fn(() => new Promise(() => undefined)) } as unknown as ReadDb;
    const snapshot = { status: () => ({ loaded: true, pools: 3, age_s: 0.5 }) } as unknown as PoolListSnapshot;
    const r = await new ReadinessCheck(db, snapshot, new ShutdownState(), apiEnvSchema.parse({}), pino({ level: 'silent' })).check();
    expect([r.ready, r.detail.database, r.detail.reasons]).toEqual([false, 'unreachable', ['database unreachable']]);
  });
});

describe('ReadinessCheck on a read replica (DATABASE_READ_URL)', () => {
  const check = (replica: Record<string, unknown> | undefined, env: Record<string, string> = {}) => checkCaughtUp({ replica, env });
  const standby = { in_recovery: true, replay_lsn: '0/3000148', receive_lsn: '0/3000148', paused: false, replay_lag_s: 0 };

  it('on a primary: replica null', async () => {
    const r = await check({ ...standby, in_recovery: false, replay_lsn: null, receive_lsn: null });
    expect([r.ready, r.detail.replica]).toEqual([true, null]);
  });

  it('reports the replay position; ready within READY_MAX_REPLICA_LAG_S', async () => {
    const r = await check({ ...standby, receive_lsn: '0/3000200', replay_lag_s: 12.34 });
    expect(r.ready).toBe(true);
    expect(r.detail.replica).toEqual({ replay_lsn: '0/3000148', receive_lsn: '0/3000200', replay_lag_s: 12.3, paused: false });
  });

  it('not ready past READY_MAX_REPLICA_LAG_S, saying so (and that replay is paused)', async () => {
    const r = await check({ ...standby, receive_lsn: '0/3000200', replay_lag_s: 31, paused: true });
    expect([r.ready, r.detail.reasons]).toEqual([false, ['replica replay 31 s behind the primary (> 30 s), replay paused']]);
    expect((await check({ ...standby, replay_lag_s: 31 }, { READY_MAX_REPLICA_LAG_S: '60' })).ready).toBe(true);
  });
});

describe('ReadinessCheck: the read contract', () => {
  const check = (missing: readonly string[]) => checkCaughtUp({ missing });

  it('is not ready while the read schema lacks a column of this release, naming the first few', async () => {
    expect(await check([])).toMatchObject({ ready: true, detail: { reasons: [] } });
    const one = await check(['read.midprice_five_minute.tail']);
    expect([one.ready, one.detail.reasons]).toEqual([
      false,
      [
        `read schema not migrated to this release: 1 of ${READ_CONTRACT_SIZE} columns missing (read.midprice_five_minute.tail); upgrade the projector (its migrations) first`,
      ],
    ]);
    const four = await check(['read.a.x', 'read.b.y', 'read.c.z', 'read.d.w']);
    expect(four.detail.reasons).toEqual([
      `read schema not migrated to this release: 4 of ${READ_CONTRACT_SIZE} columns missing (read.a.x, read.b.y, read.c.z, …); upgrade the projector (its migrations) first`,
    ]);
    const none = await check(Array.from({ length: READ_CONTRACT_SIZE }, (_, i) => `read.v.c${i}`));
    expect(none.detail.reasons).toEqual(['read schema not created yet: the projector has not run its migrations']);
  });
});

describe('ShutdownState', () => {
  it('counts responses only once draining', () => {
    const s = new ShutdownState();
    s.noteResponse();
    expect([s.draining, s.responsesWhileDraining]).toEqual([false, 0]);
    s.begin();
    s.noteResponse();
    s.noteResponse();
    expect([s.draining, s.responsesWhileDraining]).toEqual([true, 2]);
  });
});
