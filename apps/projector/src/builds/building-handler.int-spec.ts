import { createPool, eventLogMigrations } from '@hadron/platform';
import type { BatchHandler, DeliveredEvent, SqlTx } from '@hadron/platform/event-log/event-log.port';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import type { PoolClient } from 'pg';
import { addr, poolDiscovered } from '../../test-support/events';
import { until } from '../../test-support/runner-harness';
import { projectorMigrations } from '../migrations';
import type { ProjectionDefinition } from '../projection';
import { quoteIdent } from '../sql/identifiers';
import { BuildRegistry, guardBuild, runApart } from './build-registry';

/**
 * A replay's bulk path (ProjectionDefinition.createBuildingHandler / finishBuild) against the
 * switch's locking, on a real Postgres: a `building` build's batches write facts only, the switch
 * derives the rest from every fact committed before it, and no batch falls between the two.
 * The probe projection records, per fact, which path derived it.
 */
describe('a replay that defers derived rows to the switch', () => {
  let db: TestDatabase;
  let registry: BuildRegistry;
  let finishGate: Promise<void> = Promise.resolve();
  let finishStarted!: () => void;
  let failApart = false;
  let finishes = 0;

  const probe: ProjectionDefinition = {
    name: 'deferred_probe',
    schema: {
      version: 1,
      tables: [
        { name: 'facts', key: ['id'] },
        { name: 'derived', key: ['id'] },
      ],
      ddl: (s) => [`CREATE TABLE ${s}.facts (id text PRIMARY KEY)`, `CREATE TABLE ${s}.derived (id text PRIMARY KEY, via text NOT NULL)`],
      views: [],
    },
    createHandler: (s) => async (events, tx) => {
      for (const { event } of events) {
        await tx.query(`INSERT INTO ${s}.facts VALUES ($1)`, [event.id]);
        await tx.query(`INSERT INTO ${s}.derived VALUES ($1, 'batch')`, [event.id]);
      }
    },
    createBuildingHandler: (s) => async (events, tx) => {
      for (const { event } of events) await tx.query(`INSERT INTO ${s}.facts VALUES ($1)`, [event.id]);
    },
    finishBuild: async (_tx: SqlTx, s: string, apart) => {
      finishes++;
      finishStarted();
      await finishGate;
      // One group fills the table (starting over, as a finish must); the other may fail.
      await apart([[`TRUNCATE ${s}.derived`, `INSERT INTO ${s}.derived SELECT id, 'finish' FROM ${s}.facts`], failApart ? ['SELECT 1 / 0'] : ['SELECT 1']]);
    },
  };

  const batch = (...ids: string[]): DeliveredEvent[] =>
    ids.map((id, i) => ({
      event: { ...poolDiscovered({ pool: addr(`deferred:${id}`), slot: 1 }), id },
      position: { stream: 'probe', partition: 0, offset: BigInt(i) },
    }));

  /**
   * Runs one guarded batch in its own transaction; `hold` keeps it open until resolved. `applied`:
   * the handler has run (the batch holds its registry row lock), `done`: the transaction has ended.
   */
  async function inTx(
    handler: BatchHandler,
    events: DeliveredEvent[],
    hold?: Promise<void>,
  ): Promise<{ pid: number; applied: Promise<void>; done: Promise<void> }> {
    const c: PoolClient = await db.pool.connect();
    const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    let applied!: () => void;
    const appliedP = new Promise<void>((r) => (applied = r));
    const done = (async () => {
      try {
        await c.query('BEGIN');
        await handler(events, c);
        applied();
        await hold;
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        throw e;
      } finally {
        c.release();
      }
    })();
    return { pid, applied: appliedP, done };
  }
  /** A build of the probe, its guarded handler, and its derived rows as `id:via`. */
  async function newBuild() {
    const build = await registry.create(probe);
    const s = quoteIdent(build.schemaName);
    const handler = guardBuild(build, probe.createHandler(s), probe.createBuildingHandler!(s));
    const derived = async () => (await db.pool.query(`SELECT id, via FROM ${s}.derived ORDER BY id`)).rows.map((r) => `${r.id}:${r.via}`);
    return { build, handler, derived };
  }
  /** Until a switch or finish waits to row-lock the build (for the batch in flight). */
  const lockingTheBuild = (who: string) =>
    until(`${who} waiting for the batch in flight`, async () => {
      const { rows } = await db.pool.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'`,
      );
      return rows.length > 0;
    });
  const waitingOnLock = (pid: number) =>
    until(`backend ${pid} waiting on a lock`, async () => {
      const { rows } = await db.pool.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [pid]);
      return rows[0]?.wait_event_type === 'Lock';
    });

  /**
   * Runs `step` (a switch or a finish) while batch b is in flight, and sends batch c while the step
   * derives: the step must wait for b to commit, and c for the step.
   */
  async function aroundBatches<T>(handler: BatchHandler, who: string, step: () => Promise<T>): Promise<T> {
    let commitB!: () => void;
    const b = await inTx(handler, batch('b'), new Promise<void>((r) => (commitB = r)));
    await b.applied; // in flight: it holds the build's row (FOR SHARE) until it commits
    const started = new Promise<void>((r) => (finishStarted = r));
    let openFinish!: () => void;
    finishGate = new Promise<void>((r) => (openFinish = r));
    const stepping = step();
    await lockingTheBuild(who);
    commitB();
    await b.done;
    await started;
    const c = await inTx(handler, batch('c'));
    await waitingOnLock(c.pid);
    openFinish();
    const result = await stepping;
    await c.done;
    return result;
  }

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
    registry = new BuildRegistry(db.pool);
  });
  afterAll(async () => db?.drop());

  it('derives at the switch (when not finished before) every fact a replay committed, waits for the batch in flight, and sends later batches to the live handler', async () => {
    const { build, handler, derived } = await newBuild();

    // Replay: facts only.
    await (
      await inTx(handler, batch('a'))
    ).done;
    expect(await derived()).toEqual([]);

    // A replay batch (b) is in flight when the switch starts: the switch waits for it, and derives it
    // too. While the switch derives, a new batch (c) waits for it, then goes to the live handler.
    await aroundBatches(handler, 'the switch', () => registry.activate(probe, build));
    expect(await derived()).toEqual(['a:finish', 'b:finish', 'c:batch']);

    // The build is active: no more finishing, every batch derives its own rows.
    finishGate = Promise.resolve();
    expect(await registry.activate(probe, build)).toBeNull();
    await (
      await inTx(handler, batch('d'))
    ).done;
    expect(await derived()).toEqual(['a:finish', 'b:finish', 'c:batch', 'd:batch']);
  });

  it('writes the deferred rows before the switch when asked, then sends every batch to the live handler, and the switch does not write them again', async () => {
    const { build, handler, derived } = await newBuild();
    await (
      await inTx(handler, batch('a'))
    ).done;

    finishes = 0;
    let starts = 0;
    expect(await aroundBatches(handler, 'the finish', () => registry.finish(probe, build, () => starts++))).toBe(true);
    expect(starts).toBe(1);
    // Still `building` (not served), but finished: batches derive their own rows.
    expect((await registry.list('deferred_probe')).find((r) => r.buildId === build.buildId)?.status).toBe('building');
    await (
      await inTx(handler, batch('d'))
    ).done;
    expect(await derived()).toEqual(['a:finish', 'b:finish', 'c:batch', 'd:batch']);

    // Asked again: nothing to do, and nothing announced (finishDeferred logs "writing…" from onStart).
    let announced = 0;
    expect(await registry.finish(probe, build, () => announced++)).toBe(false);
    expect(announced).toBe(0);
    await registry.activate(probe, build);
    expect(finishes).toBe(1);
    expect(await derived()).toEqual(['a:finish', 'b:finish', 'c:batch', 'd:batch']);
  });

  it('leaves a build whose finish failed as it was: the replay goes on in bulk and the next attempt derives everything', async () => {
    const { build, handler, derived } = await newBuild();
    await (
      await inTx(handler, batch('x'))
    ).done;
    finishGate = Promise.reject(new Error('the finish failed while deriving'));
    finishGate.catch(() => undefined);
    await expect(registry.finish(probe, build)).rejects.toThrow('the finish failed while deriving');
    await expect(registry.activate(probe, build)).rejects.toThrow('the finish failed while deriving');
    expect((await registry.list('deferred_probe')).find((r) => r.buildId === build.buildId)?.status).toBe('building');

    await (
      await inTx(handler, batch('y'))
    ).done;
    // A group of the set-based pass fails after the other committed its rows: still unfinished, and the next attempt starts over.
    finishGate = Promise.resolve();
    failApart = true;
    await expect(registry.finish(probe, build)).rejects.toThrow('division by zero');
    expect(await derived()).toEqual(['x:finish', 'y:finish']); // the other group committed
    await (
      await inTx(handler, batch('z'))
    ).done;
    expect((await registry.list('deferred_probe')).find((r) => r.buildId === build.buildId)?.status).toBe('building');
    failApart = false;
    await registry.activate(probe, build);
    expect(await derived()).toEqual(['x:finish', 'y:finish', 'z:finish']);
  });

  it('hands what a handler prepared ahead to that handler only: the building one before the finish, the live one after', async () => {
    const got: string[] = [];
    /** `h`, recording whose preparation each batch brought; its own `prepare` names it. */
    const tagged = (tag: string, h: BatchHandler): BatchHandler => {
      const f: BatchHandler = async (events, tx, prepared) => {
        got.push(`${tag} got ${prepared === undefined ? 'nothing' : (prepared as { by: string }).by}`);
        await h(events, tx);
      };
      f.prepare = () => ({ by: tag });
      return f;
    };
    const build = await registry.create(probe);
    const s = quoteIdent(build.schemaName);
    const handler = guardBuild(build, tagged('live', probe.createHandler(s)), tagged('building', probe.createBuildingHandler!(s)));
    const apply = async (events: DeliveredEvent[], prepared: unknown) => {
      const c = await db.pool.connect();
      try {
        await c.query('BEGIN');
        await handler(events, c, prepared);
        await c.query('COMMIT');
      } finally {
        c.release();
      }
    };
    // As a consumer reading ahead: each batch is prepared before the one before it commits.
    const b1 = batch('p1');
    const p1 = handler.prepare!(b1);
    const b2 = batch('p2');
    const p2 = handler.prepare!(b2);
    await apply(b1, p1);
    finishStarted = () => undefined;
    expect(await registry.finish(probe, build)).toBe(true);
    const b3 = batch('p3');
    await apply(b2, p2); // prepared for the building handler, applied by the live one: not handed over
    const p3 = handler.prepare!(b3);
    await apply(b3, p3);
    expect(got).toEqual(['building got building', 'live got nothing', 'live got live']);
  });

  it("refuses a finish's groups that the pool cannot hold beside the finish and a waiting batch (they could wait for a connection forever), saying what it takes", async () => {
    const small = createPool(db.url, { max: 3, application: 'small-pool' });
    try {
      await expect(runApart(small)([['SELECT 1'], ['SELECT 1']])).rejects.toThrow(
        "finishing a build takes 4 database connections at once (2 of its own, the finish's, a batch waiting on it); this process's pool has 3",
      );
      await expect(runApart(small)([['SELECT 1']])).resolves.toBeUndefined();
    } finally {
      await small.end();
    }
  });
});
