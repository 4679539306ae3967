import { randomBytes } from 'node:crypto';
import { SessionLock } from '@hadron/platform/database/session-lock';
import { inTransaction } from '@hadron/platform/database/pool';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import type { Pool, PoolClient } from 'pg';
import type { ApartGroup, ProjectionDefinition, RunApart } from '../projection';
import { buildConsumerGroup, buildSchemaName, quoteIdent } from '../sql/identifiers';
import { createBuildTables, pointReadViews, READ_VIEWS_LOCK, REGISTRY } from './build-objects';

export type BuildStatus = 'building' | 'active' | 'retired' | 'dropped';

export interface BuildRecord {
  projection: string;
  version: number;
  buildId: string;
  schemaName: string;
  consumerGroup: string;
  status: BuildStatus;
}

interface BuildRow {
  projection: string;
  version: number;
  build_id: string;
  schema_name: string;
  consumer_group: string;
  status: BuildStatus;
}

const COLUMNS = 'projection, version, build_id, schema_name, consumer_group, status';
/** Serialises creations and switches of builds across processes. */
const SWITCH_LOCK = "hashtext('hadron:projector:builds')";

export interface ActivateOptions {
  nowSec?: number;
  /** How long the switch waits for readers of the views before it gives way and retries. */
  viewLockTimeoutMs?: number;
  attempts?: number;
}

/** A short, sortable, SQL-safe build id, e.g. b0mi9x2k4a1f3. */
export function newBuildId(): string {
  return `b${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
}

/**
 * The registry of projection builds (table projector.projection_builds). A build = one version of
 * one projection, materialised in its own schema by its own consumer group.
 */
export class BuildRegistry {
  constructor(private readonly pool: Pool) {}

  async active(projection: string): Promise<BuildRecord | null> {
    const { rows } = await this.pool.query<BuildRow>(`SELECT ${COLUMNS} FROM ${REGISTRY} WHERE projection = $1 AND status = 'active'`, [projection]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async list(projection?: string): Promise<BuildRecord[]> {
    const { rows } = await this.pool.query<BuildRow>(
      `SELECT ${COLUMNS} FROM ${REGISTRY} WHERE ($1::text IS NULL OR projection = $1) ORDER BY projection, created_at, build_id`,
      [projection ?? null],
    );
    return rows.map(toRecord);
  }

  /** Creates an empty build (schema + tables) of the projection's current version, status `building`. */
  async create(def: ProjectionDefinition, buildId = newBuildId()): Promise<BuildRecord> {
    const version = def.schema.version;
    const record: BuildRecord = {
      projection: def.name,
      version,
      buildId,
      schemaName: buildSchemaName(def.name, version, buildId),
      consumerGroup: buildConsumerGroup(def.name, version, buildId),
      status: 'building',
    };
    await this.inTransaction(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(${SWITCH_LOCK})`);
      await createBuildTables(c, def.schema, record.schemaName);
      await c.query(`INSERT INTO ${REGISTRY} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, 'building')`, [
        record.projection,
        record.version,
        record.buildId,
        record.schemaName,
        record.consumerGroup,
      ]);
    });
    return record;
  }

  /**
   * The atomic switch: in ONE transaction the build becomes `active`, the previous active build
   * `retired`, and the `read` views point at the new schema (after `def.refresh`, so caches such as
   * the 24 h stats are filled before anyone reads them). Readers see the old build until COMMIT.
   * Returns the build that was active before, if any.
   *
   * Lock order: the builds lock, then the read-views advisory lock (exclusive: waits for the
   * refresher), then the registry rows (wait for an in-flight batch of either build), then all
   * existing views at once under a short lock_timeout: if a reader holds a view (possibly waiting
   * for another one we hold) the switch rolls back after `viewLockTimeoutMs`, so the reader goes
   * on, and is retried (also after a deadlock) up to `attempts` times.
   */
  async activate(def: ProjectionDefinition, build: BuildRecord, opts: ActivateOptions = {}): Promise<BuildRecord | null> {
    const nowSec = opts.nowSec ?? Math.floor(Date.now() / 1000);
    const attempts = opts.attempts ?? 40;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.activateOnce(def, build, nowSec, opts.viewLockTimeoutMs ?? 500);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if ((code !== '55P03' && code !== '40P01') || attempt >= attempts) throw e;
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * attempt) + Math.random() * 100));
      }
    }
  }

  private async activateOnce(def: ProjectionDefinition, build: BuildRecord, nowSec: number, viewLockTimeoutMs: number): Promise<BuildRecord | null> {
    return this.inTransaction(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(${SWITCH_LOCK})`);
      await c.query(`SELECT pg_advisory_xact_lock(${READ_VIEWS_LOCK})`);
      // Row locks wait for an in-flight batch of either build (see guardBuild) to commit first.
      const { rows } = await c.query<BuildRow & { finished: boolean }>(
        `SELECT ${COLUMNS}, finished_at IS NOT NULL AS finished FROM ${REGISTRY} WHERE projection = $1 AND (status = 'active' OR build_id = $2) ORDER BY build_id FOR UPDATE`,
        [build.projection, build.buildId],
      );
      const target = rows.find((r) => r.build_id === build.buildId);
      if (!target || (target.status !== 'building' && target.status !== 'active')) {
        throw new Error(`build ${build.consumerGroup} cannot be activated (status ${target?.status ?? 'missing'})`);
      }
      if (target.status === 'active') return null;
      const previous = rows.find((r) => r.status === 'active' && r.build_id !== build.buildId);
      if (previous)
        await c.query(`UPDATE ${REGISTRY} SET status = 'retired', retired_at = now() WHERE projection = $1 AND build_id = $2`, [
          previous.projection,
          previous.build_id,
        ]);
      await c.query(`UPDATE ${REGISTRY} SET status = 'active', activated_at = now() WHERE projection = $1 AND build_id = $2`, [
        build.projection,
        build.buildId,
      ]);
      // What the replay deferred, unless `finish` wrote it already: before anyone reads the build.
      if (target.status === 'building' && !target.finished) await this.finishIn(c, def, build);
      if (def.refresh) await def.refresh(c, quoteIdent(build.schemaName), nowSec);
      await c.query(`SET LOCAL lock_timeout = '${Math.max(1, Math.floor(viewLockTimeoutMs))}ms'`);
      await pointReadViews(c, def.schema, build.schemaName);
      build.status = 'active';
      return previous ? { ...toRecord(previous), status: 'retired' } : null;
    });
  }

  /**
   * Writes what a `building` build's replay deferred (ProjectionDefinition.finishBuild), in its own
   * transaction: call it once the build has caught up, before the switch, so the switch itself
   * stays short (the served build keeps being consumed meanwhile). It row-locks the build: a batch
   * in flight commits first, later ones wait, then go to the live handler (guardBuild). Returns
   * false when there was nothing to do: no such step, already done, or the build is not `building`;
   * `onStart` is called only when there is (the row locked, the build found unfinished).
   */
  async finish(def: ProjectionDefinition, build: BuildRecord, onStart?: () => void): Promise<boolean> {
    if (!def.finishBuild) return false;
    return this.inTransaction(async (c) => {
      const { rows } = await c.query<{ status: BuildStatus; finished: boolean }>(
        `SELECT status, finished_at IS NOT NULL AS finished FROM ${REGISTRY} WHERE projection = $1 AND build_id = $2 FOR UPDATE`,
        [build.projection, build.buildId],
      );
      if (rows[0]?.status !== 'building' || rows[0].finished) return false;
      onStart?.();
      await this.finishIn(c, def, build);
      return true;
    });
  }

  private async finishIn(c: PoolClient, def: ProjectionDefinition, build: BuildRecord): Promise<void> {
    if (!def.finishBuild) return;
    await def.finishBuild(c, quoteIdent(build.schemaName), runApart(this.pool));
    await c.query(`UPDATE ${REGISTRY} SET finished_at = now() WHERE projection = $1 AND build_id = $2`, [build.projection, build.buildId]);
  }

  /** Drops a build's schema (never the active one). Its consumer checkpoints are left as history. */
  async drop(build: BuildRecord): Promise<void> {
    await this.inTransaction(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(${SWITCH_LOCK})`);
      const { rows } = await c.query<{ status: BuildStatus }>(`SELECT status FROM ${REGISTRY} WHERE projection = $1 AND build_id = $2 FOR UPDATE`, [
        build.projection,
        build.buildId,
      ]);
      if (!rows[0] || rows[0].status === 'dropped') return;
      if (rows[0].status === 'active') throw new Error(`refusing to drop the active build ${build.consumerGroup}`);
      await c.query(`DROP SCHEMA IF EXISTS ${quoteIdent(build.schemaName)} CASCADE`);
      await c.query(`UPDATE ${REGISTRY} SET status = 'dropped' WHERE projection = $1 AND build_id = $2`, [build.projection, build.buildId]);
    });
    build.status = 'dropped';
  }

  /**
   * Housekeeping after a switch: keeps the newest `keepRetired` retired builds, drops the others,
   * and drops unfinished builds left by a killed rebuild. Call it holding the projection's lock.
   */
  async dropObsolete(projection: string, keepRetired: number, exceptBuildId?: string): Promise<BuildRecord[]> {
    const builds = (await this.list(projection)).filter((b) => b.buildId !== exceptBuildId);
    const retired = builds.filter((b) => b.status === 'retired').reverse();
    const victims = [...retired.slice(keepRetired), ...builds.filter((b) => b.status === 'building')];
    for (const b of victims) await this.drop(b);
    return victims;
  }

  private inTransaction<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }
}

/**
 * `apart` for a finish on `pool` (ProjectionDefinition.finishBuild): each group in its own
 * transaction and connection, all at once; fails (after all have ended) if one did. Refused when
 * the pool cannot hold them beside the finish's own connection and a batch of the build waiting
 * on its lock: groups that feed each other (a reader and its writers) would wait for a connection
 * forever.
 */
export function runApart(pool: Pool): RunApart {
  return async (groups: readonly ApartGroup[]) => {
    const max = (pool as { options?: { max?: number } }).options?.max;
    if (max !== undefined && groups.length + 2 > max)
      throw new Error(
        `finishing a build takes ${groups.length + 2} database connections at once (${groups.length} of its own, the finish's, a batch waiting on it); this process's pool has ${max}`,
      );
    const ended = await Promise.allSettled(
      groups.map((group) =>
        inTransaction(pool, async (c) => {
          if (typeof group === 'function') return group(c);
          for (const statement of group) await c.query(statement);
        }),
      ),
    );
    const failed = ended.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
}

/**
 * A caught-up build's deferred tables (ProjectionDefinition.finishBuild), written before the switch
 * so that the switch stays short; logged, as it can take a while on a long history.
 */
export async function finishDeferred(registry: BuildRegistry, def: ProjectionDefinition, build: BuildRecord, log: Logger): Promise<void> {
  if (!def.finishBuild) return;
  let started = 0;
  const what = { projection: def.name, group: build.consumerGroup };
  // Said once the build's row is locked and found unfinished: a retried switch after a finish says nothing.
  const finished = await registry.finish(def, build, () => {
    started = Date.now();
    log.info(what, 'replay caught up; writing the tables it deferred');
  });
  if (finished) log.info({ ...what, seconds: (Date.now() - started) / 1000 }, 'wrote the tables the replay deferred');
}

/** Thrown when a batch reaches a build that is no longer served; transient (code 40001): retried, never dead-lettered. */
export class BuildNotServingError extends Error {
  override readonly name = 'BuildNotServingError';
  readonly code = '40001';
  constructor(build: BuildRecord, status: string | undefined) {
    super(`build ${build.consumerGroup} is ${status ?? 'gone'}; its consumer must stop`);
  }
}

/**
 * Wraps a build's handler: each batch first share-locks the build's registry row and checks that
 * the build is still `building` or `active`. A switch (which row-locks it) therefore waits for an
 * in-flight batch, and no batch of a retired build commits after the switch.
 * While the build is `building` (a replay nobody reads yet) the batch goes to `buildingHandler`
 * when there is one (ProjectionDefinition.createBuildingHandler) until what it defers is written
 * (BuildRegistry.finish, or the switch), and commits asynchronously
 * (synchronous_commit off for this transaction): a database crash may lose the last commits, but
 * each one carries its own checkpoint, so they are lost together and replayed (the consumer
 * notices a checkpoint behind its own commits and re-reads from it).
 */
export function guardBuild(build: BuildRecord, handler: BatchHandler, buildingHandler?: BatchHandler): BatchHandler {
  // Which of the two took the last batch: the next batch is prepared ahead by its `prepare`. What
  // one handler prepared goes to that handler only (their inputs need not be alike); the other
  // prepares its own (once: the batch that follows a finish, or a worker's first).
  let last = buildingHandler ?? handler;
  const guarded: BatchHandler = async (events, tx, prepared) => {
    const { rows } = await tx.query<{ status: string; finished: boolean }>(
      `SELECT status, finished_at IS NOT NULL AS finished, CASE WHEN status = 'building' THEN set_config('synchronous_commit', 'off', true) END AS relaxed
         FROM ${REGISTRY} WHERE projection = $1 AND build_id = $2 FOR SHARE`,
      [build.projection, build.buildId],
    );
    const status = rows[0]?.status;
    if (status !== 'building' && status !== 'active') throw new BuildNotServingError(build, status);
    const apply = status === 'building' && !rows[0].finished && buildingHandler ? buildingHandler : handler;
    last = apply;
    const own = prepared instanceof PreparedBy && prepared.handler === apply ? prepared.value : undefined;
    await (own === undefined ? apply(events, tx) : apply(events, tx, own));
  };
  // Preparing needs no database, so no guard: the batch it is used for still passes the one above.
  if (handler.prepare || buildingHandler?.prepare) {
    guarded.prepare = (events) => {
      const by = last;
      return by.prepare ? new PreparedBy(by, by.prepare(events)) : undefined;
    };
  }
  return guarded;
}

/** What a handler's `prepare` returned, with the handler: guardBuild hands it to no other. */
class PreparedBy {
  constructor(
    readonly handler: BatchHandler,
    readonly value: unknown,
  ) {}
}

/** One rebuild per projection at a time, across processes: a session advisory lock on a held connection. */
export class ProjectionLock {
  private constructor(
    private readonly lock: SessionLock,
    readonly projection: string,
  ) {}

  static async tryAcquire(pool: Pool, projection: string): Promise<ProjectionLock | null> {
    const lock = await SessionLock.tryAcquire(pool, `hadron:projector:rebuild:${projection}`);
    return lock && new ProjectionLock(lock, projection);
  }

  release(): Promise<void> {
    return this.lock.release();
  }
}

function toRecord(r: BuildRow): BuildRecord {
  return { projection: r.projection, version: r.version, buildId: r.build_id, schemaName: r.schema_name, consumerGroup: r.consumer_group, status: r.status };
}
