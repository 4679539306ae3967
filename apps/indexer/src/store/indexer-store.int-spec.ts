import { eventLogMigrations } from '@hadron/platform';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import type { PoolRecord } from '../pipeline/pool-state';
import { IndexerStore, LeaseLostError, type CycleRecord } from './indexer-store';
import { indexerMigrations } from './migrations';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase([eventLogMigrations, indexerMigrations]);
});

afterAll(async () => {
  await db.drop();
});

const record = (config: string): PoolRecord =>
  ({
    static: {
      config,
      programId: 'P',
      version: 'v1',
      seed: '1',
      mintX: 'X',
      mintY: 'Y',
      tokenProgramX: 'T',
      tokenProgramY: 'T',
      vaultX: 'VX',
      vaultY: 'VY',
      oracle: 'O',
      poolFeeConfig: 'F',
      globalFeeConfig: 'G',
    },
    tokens: { x: { mint: 'X', symbol: 'x', name: 'x', decimals: 9, icon: '' }, y: { mint: 'Y', symbol: 'y', name: 'y', decimals: 6, icon: '' } },
    tracked: { midpriceQ32: '18446744073709551615', spreadFactorQ32: null, split: [{ recipient: 'R', ppm: 1_000_000 }], vaultX: '1', vaultY: '2' },
    published: { state: 1, authority: 'A', oracleMode: 0, spreadConfigInitialized: false, hasPoolFee: false, feeConfig: 'G', fee: null, oracle: null },
    discoveredSlot: 99,
  }) as PoolRecord;

it('commits cursor, program cursors, pool state, gaps and problems together, and loads them back', async () => {
  const store = new IndexerStore(db.pool);
  expect(await store.load('devnet')).toMatchObject({ throughSlot: null, cycle: null, backfillDone: false });
  const cycle: CycleRecord = {
    targetSlot: 500,
    targetBlockTime: 1,
    mode: 'at-target',
    snapshot: { slot: 500, pools: {} },
    newPools: {},
    rangeStartSlot: 0,
    rangeStartTime: null,
    discoveryPublished: false,
  };
  await store.saveCycle('devnet', cycle);
  expect((await store.load('devnet')).cycle).toEqual(cycle);
  await store.commit('devnet', {
    throughSlot: 420,
    lastSignature: 'sigA',
    startSlot: 100,
    backfillDone: false,
    cycle,
    programCursors: new Map([['P', { slot: 419, signature: 'sigB' }]]),
    pools: [record('C1')],
    gaps: [{ signature: 'missing', slot: 410, txIndex: 3, attempts: 0, lastError: 'null after 6 attempts', state: { C1: record('C1').tracked } }],
    problems: [{ code: 'unknown_pool', message: 'm', eventId: 'sig:1', poolConfig: 'Z', slot: 411 }],
  });
  const loaded = await store.load('devnet');
  expect(loaded).toMatchObject({ throughSlot: 420, lastSignature: 'sigA', startSlot: 100 });
  expect(loaded.programCursors.get('P')).toEqual({ slot: 419, signature: 'sigB' });
  expect(loaded.pools.get('C1')).toEqual(record('C1'));
  expect(await store.gapCount('devnet')).toBe(1);
  expect(await store.problemCount('devnet')).toBe(1);
  const [gap] = await store.dueGaps('devnet', 10);
  expect(gap).toMatchObject({ signature: 'missing', slot: 410, txIndex: 3, attempts: 0 });
  await store.deferGap('devnet', 'missing', 'still null', 60_000);
  expect(await store.dueGaps('devnet', 10)).toEqual([]);
  await store.resolveGaps('devnet', ['missing'], [{ code: 'unresolved_amounts', message: 'm', eventId: 'sig:2', poolConfig: 'Z', slot: 410 }]);
  expect(await store.gapCount('devnet')).toBe(0);
  // Problems from a chunk, a resolved gap or an account read land in one table, once per (event_id, code).
  await store.recordProblems('devnet', [{ code: 'unknown_pool', message: 'again', eventId: 'sig:1', poolConfig: 'Z', slot: 411 }]);
  expect(await store.problemCount('devnet')).toBe(2);
  expect(await store.load('mainnet-beta')).toMatchObject({ throughSlot: null }); // clusters are separate
});

it('a failed commit changes nothing (one transaction)', async () => {
  const store = new IndexerStore(db.pool);
  const before = await store.load('devnet');
  await expect(
    store.commit('devnet', {
      throughSlot: 9999,
      lastSignature: 'x',
      startSlot: 100,
      backfillDone: true,
      cycle: null,
      programCursors: new Map(),
      pools: [record('C2')],
      gaps: [],
      problems: [{ code: 'unknown_pool', message: 'm', eventId: 'e', poolConfig: null, slot: Number.NaN }], // slot NaN → the insert fails
    }),
  ).rejects.toThrow();
  const after = await store.load('devnet');
  expect(after.throughSlot).toBe(before.throughSlot);
  expect(after.pools.has('C2')).toBe(false);
});

it('lets one indexer per cluster be active; a second one waits for the lock', async () => {
  const store = new IndexerStore(db.pool);
  const first = await store.tryLockCluster('devnet');
  expect(first).not.toBeNull();
  expect(await store.tryLockCluster('devnet')).toBeNull();
  const other = await store.tryLockCluster('mainnet-beta');
  expect(other).not.toBeNull();
  await first!.release();
  const again = await store.tryLockCluster('devnet');
  expect(again).not.toBeNull();
  await again!.release();
  await other!.release();
});

describe('the cluster lease (fencing)', () => {
  const lockPid = async (cluster: string) => {
    const { rows } = await db.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`hadron-indexer-lock:${cluster}`]);
    return rows.map((r) => r.pid);
  };
  const terminateLock = async (cluster: string) => {
    const [pid] = await lockPid(cluster);
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
  };
  const until = async (cond: () => boolean) => {
    for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(cond()).toBe(true);
  };
  const cycle = (targetSlot: number): CycleRecord => ({
    targetSlot,
    targetBlockTime: 1,
    mode: 'at-target',
    snapshot: null,
    newPools: {},
    rangeStartSlot: null,
    rangeStartTime: null,
    discoveryPublished: false,
  });

  it('taking the lock bumps the epoch; an append under a stale epoch or a lost lock is refused, and the process survives the terminated connection', async () => {
    const store = new IndexerStore(db.pool);
    const a = await store.tryLockCluster('fence-1');
    expect(a).not.toBeNull();
    expect(await store.tryLockCluster('fence-1')).toBeNull(); // one holder
    expect(await lockPid('fence-1')).toHaveLength(1);
    await store.fenced(a!, (tx) => store.saveCycle('fence-1', cycle(1), tx));

    await terminateLock('fence-1'); // 57P01 on the lock connection: handled, no crash
    await until(() => a!.lost !== null);
    await expect(store.fenced(a!, (tx) => store.saveCycle('fence-1', cycle(2), tx))).rejects.toThrow(LeaseLostError);

    const b = await store.tryLockCluster('fence-1');
    expect(b!.epoch).toBe(a!.epoch + 1n);
    await store.fenced(b!, (tx) => store.saveCycle('fence-1', cycle(3), tx));
    // Someone else took the lease (its epoch moved on) while b's connection is still up: b is refused by the database check.
    await db.pool.query("UPDATE indexer.lease SET epoch = epoch + 1 WHERE cluster = 'fence-1'");
    await expect(store.fenced(b!, (tx) => store.saveCycle('fence-1', cycle(4), tx))).rejects.toThrow(/superseded/);
    expect((await store.load('fence-1')).cycle?.targetSlot).toBe(3);
    await b!.release();
    await a!.release();
    expect(await lockPid('fence-1')).toEqual([]);
  });

  it("a takeover waits for the old holder's append in flight, and that append's cursor commit is rolled back", async () => {
    const store = new IndexerStore(db.pool);
    const a = (await store.tryLockCluster('fence-2'))!;
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let appended = false;
    const inFlight = store.fenced(a, async (tx) => {
      await gate; // the append to the log, still in flight
      appended = true;
      await store.saveCycle('fence-2', cycle(9), tx);
    });
    inFlight.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 100));
    await terminateLock('fence-2');
    await until(() => a.lost !== null);

    let tookOver = false;
    const b = store.tryLockCluster('fence-2').then((l) => ((tookOver = true), l));
    await new Promise((r) => setTimeout(r, 500));
    expect(tookOver).toBe(false); // the epoch bump waits for a's fenced transaction
    open();
    await expect(inFlight).rejects.toThrow(LeaseLostError);
    expect(appended).toBe(true);
    const lease = (await b)!;
    expect(lease.epoch).toBe(a.epoch + 1n);
    expect((await store.load('fence-2')).cycle).toBeNull(); // a's cursor write went with its refused transaction
    await lease.release();
    await a.release();
  });
});
