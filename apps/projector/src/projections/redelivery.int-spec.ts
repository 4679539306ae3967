import type { HadronEvent } from '@hadron/contracts';
import { inTransaction, type SqlTx } from '@hadron/platform';
import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { applyBatch } from '../../test-support/events';
import { generateEvents, mulberry32 } from '../../test-support/event-generator';
import { checksumBuild } from '../../test-support/read-checksum';
import { createBuildTables } from '../builds/build-objects';
import { runApart } from '../builds/build-registry';
import { projectorMigrations } from '../migrations';
import type { ProjectionDefinition } from '../projection';
import { quoteIdent } from '../sql/identifiers';
import { ALL_PROJECTIONS } from '.';

/**
 * A log delivers a fact more than once: Kafka keeps the copy a producer retry or an indexer
 * restart appends, at any distance after the first, and a consumer's batches cut the log
 * anywhere. Kafka also keeps order only within a partition (a pool's facts: the key is the pool),
 * and a consumer reads its partitions and topics interleaved in any way. Every projection, live
 * and (where it has one) through its replay path, must end exactly as one application of each
 * fact in the order they were made. The copies here are denser than the kill test's (one in 500),
 * so that a copy lands in another batch than its first far more often.
 */
describe('every projection: copies of facts in later batches, and pools interleaved in any order, change nothing', () => {
  let db: TestDatabase;
  const random = mulberry32(41);
  // Half the oracle updates as an older decoder wrote them (no After fields): their points carry the spread from before them.
  const events = [...generateEvents({ events: 30_000, poolsPerCluster: 3, seed: 7 })].map((e) => {
    if (e.type !== 'MidpriceUpdated' || random() < 0.5) return e;
    const { midpriceAfterQ32: _m, spreadFactorAfterQ32: _s, ...data } = e.data;
    return { ...e, data };
  });

  /**
   * The log with copies: after about one fact in 10, a copy of one of the last 50, most often of
   * one of the last few (a producer's retry); after about one in 500, the last 1 to 40 again (a
   * restart re-appending them).
   */
  const redelivered: HadronEvent[] = [];
  const copies: HadronEvent[] = [];
  for (const [i, e] of events.entries()) {
    redelivered.push(e);
    const again: HadronEvent[] = [];
    if (random() < 0.1) again.push(events[Math.max(0, i - Math.floor(random() ** 3 * 50))]);
    if (random() < 0.002) again.push(...events.slice(Math.max(0, i - Math.floor(random() * 40)), i + 1));
    redelivered.push(...again);
    copies.push(...again);
  }
  // As a consumer reads partitions: each pool's facts in their order, the pools interleaved in runs of 1 to 60.
  const byPool = new Map<string, HadronEvent[]>();
  for (const e of redelivered) {
    const key = `${e.cluster} ${e.pool}`;
    if (!byPool.has(key)) byPool.set(key, []);
    byPool.get(key)!.push(e);
  }
  const streams = [...byPool.values()];
  const delivered: HadronEvent[] = [];
  while (streams.length > 0) {
    const i = Math.floor(random() * streams.length);
    delivered.push(...streams[i].splice(0, 1 + Math.floor(random() * 60)));
    if (streams[i].length === 0) streams.splice(i, 1);
  }

  /** `log` into a fresh build of `def` in batches of 1 to `maxBatch` facts (`building`: its replay handler, then its finish). */
  const build = async (def: ProjectionDefinition, name: string, log: readonly HadronEvent[], maxBatch: number, building: boolean) => {
    await createBuildTables(db.pool, def.schema, name);
    const schema = quoteIdent(name);
    const handler = building ? def.createBuildingHandler!(schema) : def.createHandler(schema);
    const cut = mulberry32(name.length * 7919);
    for (let at = 0; at < log.length;) await applyBatch(db.pool, handler, log.slice(at, (at += 1 + Math.floor(cut() * maxBatch))));
    if (building && def.finishBuild) await inTransaction(db.pool, (c) => def.finishBuild!(c as unknown as SqlTx, schema, runApart(db.pool)));
    return checksumBuild(db.pool, def, name);
  };

  beforeAll(async () => {
    db = await createTestDatabase([eventLogMigrations, projectorMigrations]);
  });
  afterAll(() => db?.drop());

  it('the log holds thousands of copies, of every fact type, and its pools interleaved otherwise', () => {
    expect(copies.length).toBeGreaterThan(3000);
    expect(delivered.length).toBe(events.length + copies.length);
    expect(delivered.map((e) => e.id)).not.toEqual(redelivered.map((e) => e.id));
    expect(new Set(copies.map((e) => e.type)).size).toBe(new Set(events.map((e) => e.type)).size);
  });

  for (const def of ALL_PROJECTIONS) {
    let clean: Awaited<ReturnType<typeof build>> | undefined;
    const once = async () => (clean ??= await build(def, `redelivery_${def.name}_clean`, events, 7919, false));

    it(`${def.name}: live, batches of 1 to 200, equals one application of each fact`, async () => {
      expect(Object.values(await once()).every((t) => t.rows > 0)).toBe(true);
      expect(await build(def, `redelivery_${def.name}_live`, delivered, 200, false)).toEqual(await once());
    });

    if (def.createBuildingHandler)
      it(`${def.name}: its replay path, batches of 1 to 200, then its finish, equals one application of each fact`, async () => {
        expect(await build(def, `redelivery_${def.name}_replay`, delivered, 200, true)).toEqual(await once());
      });
  }
});
