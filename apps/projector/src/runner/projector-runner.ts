import type { OwnedPartitions } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import { RepeatedWarnings } from '@hadron/platform/logging/repeats';
import type { Pool } from 'pg';
import { BuildRegistry, finishDeferred, ProjectionLock, type BuildRecord } from '../builds/build-registry';
import { noMetrics, type ProjectorMetrics } from '../metrics/projector-metrics';
import type { ProjectionDefinition } from '../projection';
import { ALL_PROJECTIONS } from '../projections';
import { quoteIdent } from '../sql/identifiers';
import { BuildWorker, type ConsumerFactory, type WorkerHealth } from './build-worker';
import { RefreshLeader } from './refresh-leader';

export interface ProjectorRunnerOptions {
  /** The read database (read tables, registry, and the consumer checkpoints). */
  pool: Pool;
  log: Logger;
  metrics?: ProjectorMetrics;
  projections?: readonly ProjectionDefinition[];
  maxBatchSize?: number;
  /** ConsumeOptions.batchTimeoutMs (default: the event log's, 5 minutes). */
  batchTimeoutMs?: number;
  /** How often the registry is re-read to follow switches made by `npm run replay`. */
  registryPollMs?: number;
  lagPollMs?: number;
  /** Retired builds kept after a switch made by this runner (0 = drop the old schema at once). */
  keepRetiredBuilds?: number;
  /** Unix seconds "now" for wall-clock refreshes (tests pin it). */
  nowSec?: () => number;
}

export interface ProjectionLag {
  projection: string;
  version: number;
  buildId: string;
  /** `active`: the build readers see; `building`: a newer version replaying beside it. */
  status: BuildRecord['status'];
  /** The build's consumer group. */
  group: string;
  /** Of the whole group (the same on every replica). */
  lag: bigint;
  /** This replica's share of the group: the partitions it owns now, with their lag (none = idle). */
  owned: OwnedPartitions;
  /** Stuck on a failure (a bug, a missing table…): retried with backoff, but not advancing. */
  stalled: boolean;
  failing: WorkerHealth['failing'];
}

export interface ProjectorLag {
  total: bigint;
  projections: ProjectionLag[];
}

interface Slot {
  /** The active build's worker: what readers see (possibly of an older, still supported version). */
  serving?: BuildWorker;
  /** A build of the code's version replaying beside it (an in-place upgrade). */
  rebuilding?: BuildWorker;
  lock?: ProjectionLock;
}

/**
 * Runs every projection: for each, the consumer group of its active build (recorded in
 * projector.projection_builds, so a restart resumes the same build and group). If the active
 * build is of an older version than the code (or missing), it rebuilds in place: a new build
 * catches up from the start of the log while the old one keeps serving — and keeps consuming, if
 * the code still has that version's definition (`previousVersions`) — then the old consumer stops
 * and the `read` views switch in one transaction. It also follows switches made by
 * `npm run replay` in another process, and runs each projection's wall-clock refresh (24 h pool
 * stats) on the active build, in one instance only (RefreshLeader).
 */
export class ProjectorRunner {
  private readonly registry: BuildRegistry;
  private readonly defs: readonly ProjectionDefinition[];
  private readonly metrics: ProjectorMetrics;
  private readonly slots = new Map<string, Slot>();
  private readonly leaders = new Map<string, RefreshLeader>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly background = new Set<Promise<void>>();
  private factory?: ConsumerFactory;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: ProjectorRunnerOptions) {
    this.registry = new BuildRegistry(opts.pool);
    this.defs = opts.projections ?? ALL_PROJECTIONS;
    this.metrics = opts.metrics ?? noMetrics;
    for (const def of this.defs) {
      this.slots.set(def.name, {});
      if (def.refresh) this.leaders.set(def.name, new RefreshLeader(opts.pool, def.name, opts.log));
    }
  }

  async start(consumerFactory: ConsumerFactory): Promise<void> {
    this.factory = consumerFactory;
    this.stopped = false;
    await this.serial(() => this.reconcile());
    this.every(this.opts.registryPollMs ?? 1000, () => this.serial(() => this.reconcile()));
    this.every(this.opts.lagPollMs ?? 5000, () => this.lag().then(() => undefined));
    for (const def of this.defs) if (def.refresh) this.every(def.refreshEveryMs ?? 2000, () => this.refresh(def));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    // A refresh or lag read already running finishes first: a refresh may be taking the refresh
    // lock, which must not be taken after release() below (it would hold a connection forever).
    await Promise.all([...this.background]);
    await this.queue;
    const workers = [...this.slots.values()].flatMap((s) => [s.serving, s.rebuilding]).filter((w): w is BuildWorker => !!w);
    await Promise.all(workers.map((w) => w.stop()));
    for (const slot of this.slots.values()) {
      slot.serving = slot.rebuilding = undefined;
      await slot.lock?.release();
      slot.lock = undefined;
    }
    for (const leader of this.leaders.values()) await leader.release();
  }

  /**
   * Per projection, the build readers see and, during an in-place upgrade, the build replaying
   * beside it (status `building`). Also published as metrics.
   */
  async lag(): Promise<ProjectorLag> {
    const projections: ProjectionLag[] = [];
    for (const slot of this.slots.values()) {
      for (const w of [slot.serving, slot.rebuilding]) {
        if (!w) continue;
        const [lag, owned] = await Promise.all([w.lag(), w.owned()]);
        const health = w.health();
        if (w === slot.serving || !slot.serving) this.metrics.lag(w.def.name, lag);
        projections.push({
          projection: w.def.name,
          version: w.build.version,
          buildId: w.build.buildId,
          status: w.build.status,
          group: w.build.consumerGroup,
          lag,
          owned,
          stalled: health.stalled,
          failing: health.failing,
        });
      }
    }
    this.metrics.ownership(projections.map((p) => ({ projection: p.projection, group: p.group, owned: p.owned })));
    return { total: projections.reduce((a, p) => a + p.lag, 0n), projections };
  }

  /**
   * Recomputes wall-clock caches of a projection's active build now (the timer does it every few
   * seconds), if this instance is the one that refreshes. Failures are logged, not thrown.
   */
  async refresh(def: ProjectionDefinition): Promise<void> {
    const w = this.slots.get(def.name)?.serving;
    const leader = this.leaders.get(def.name);
    if (!def.refresh || !leader || !w || w.build.status !== 'active') return;
    const nowSec = this.nowSec();
    await leader
      .run((tx) => def.refresh!(tx, quoteIdent(w.build.schemaName), nowSec))
      .catch((e) => this.opts.log.warn({ err: (e as Error).message, projection: def.name }, 'refresh failed; will retry'));
  }

  private nowSec(): number {
    return this.opts.nowSec?.() ?? Math.floor(Date.now() / 1000);
  }

  private async reconcile(): Promise<void> {
    for (const def of this.defs) {
      if (this.stopped) return;
      await this.reconcileOne(def).catch((e) =>
        this.opts.log.error({ err: (e as Error).message, projection: def.name }, 'projection reconcile failed; will retry'),
      );
    }
  }

  private async reconcileOne(def: ProjectionDefinition): Promise<void> {
    const slot = this.slots.get(def.name)!;
    const active = await this.registry.active(def.name);
    const version = def.schema.version;
    if (active && active.version === version) {
      if (slot.rebuilding && slot.rebuilding.build.buildId !== active.buildId) {
        // Cannot happen while we hold the projection lock; be safe anyway.
        await this.stopWorker(slot, 'rebuilding');
        await this.releaseLock(slot);
      }
      if (slot.serving?.build.buildId === active.buildId) return;
      if (slot.serving) {
        // Another process (npm run replay) switched to a new build: follow it.
        this.opts.log.info({ projection: def.name, from: slot.serving.build.consumerGroup, to: active.consumerGroup }, 'active build changed; following it');
        await this.stopWorker(slot, 'serving');
      }
      slot.serving = await this.run(def, active);
      return;
    }
    if (active && active.version > version) {
      await this.stopWorker(slot, 'serving');
      await this.stopWorker(slot, 'rebuilding');
      await this.releaseLock(slot);
      this.opts.log.warn({ projection: def.name, active: active.version, code: version }, 'the active build is newer than this code; not consuming it');
      return;
    }
    // The active build is older (or there is none). When it has applied nothing (a fresh install:
    // the migration's initial build of an older version), there is nothing to keep serving while a
    // replay catches up: the code's version becomes the active build at once, so readers never see
    // the older version's semantics.
    if (!slot.rebuilding && !slot.serving && (await this.appliedNothing(active))) {
      const lock = await ProjectionLock.tryAcquire(this.opts.pool, def.name);
      if (lock) {
        try {
          const unfinished = (await this.registry.list(def.name)).filter((b) => b.status === 'building' && b.version === version).pop();
          const build = unfinished ?? (await this.registry.create(def));
          await this.registry.activate(def, build, { nowSec: this.nowSec() });
          await this.registry.dropObsolete(def.name, this.opts.keepRetiredBuilds ?? 0, build.buildId);
          this.opts.log.info(
            { projection: def.name, active: build.consumerGroup, replaced: active?.consumerGroup ?? null },
            'activated the projection at once: the build it replaces had applied no event',
          );
          slot.serving = await this.run(def, build);
        } finally {
          await lock.release();
        }
        return;
      }
    }
    // Keep the older build served, and consumed if this code still can.
    const older = active ? def.previousVersions?.find((d) => d.schema.version === active.version) : undefined;
    if (slot.serving && slot.serving.build.buildId !== active?.buildId) await this.stopWorker(slot, 'serving');
    if (active && older && !slot.serving) slot.serving = await this.run(older, active);
    if (slot.rebuilding) return; // our rebuild is under way
    const lock = await ProjectionLock.tryAcquire(this.opts.pool, def.name);
    if (!lock) return; // another process is rebuilding it
    slot.lock = lock;
    const unfinished = (await this.registry.list(def.name)).filter((b) => b.status === 'building' && b.version === version).pop();
    const build = unfinished ?? (await this.registry.create(def));
    this.opts.log.info(
      { projection: def.name, group: build.consumerGroup, serving: active?.consumerGroup ?? null, servingConsumed: !!slot.serving, resumed: !!unfinished },
      'rebuilding projection',
    );
    slot.rebuilding = await this.run(def, build, () => this.finishThenSwitch(def, build));
  }

  /** True when there is no active build, or its consumer group has never committed a batch. */
  private async appliedNothing(active: BuildRecord | null): Promise<boolean> {
    if (!active) return true;
    const { rowCount } = await this.opts.pool.query('SELECT 1 FROM event_log_checkpoint WHERE group_id = $1 AND next_offset > 0 LIMIT 1', [
      active.consumerGroup,
    ]);
    return rowCount === 0;
  }

  /**
   * The rebuilt build caught up: first what its replay deferred, while the served build is still
   * consumed, outside the runner's serial queue (it can take a while on a long history, and
   * following the registry must not wait for it); then the switch.
   */
  private async finishThenSwitch(def: ProjectionDefinition, build: BuildRecord): Promise<void> {
    if (this.stopped || this.slots.get(def.name)?.rebuilding?.build.buildId !== build.buildId) return;
    await finishDeferred(this.registry, def, build, this.opts.log);
    await this.serial(() => this.switchTo(def, build));
  }

  /** The rebuilt build caught up: stop the old consumer, switch the views, drop the old build. */
  private async switchTo(def: ProjectionDefinition, build: BuildRecord): Promise<void> {
    const slot = this.slots.get(def.name)!;
    if (this.stopped || slot.rebuilding?.build.buildId !== build.buildId) return;
    // Stopped first, so none of its batches races the switch; served data pauses only for the switch.
    const old = slot.serving;
    await this.stopWorker(slot, 'serving');
    let previous: BuildRecord | null;
    try {
      previous = await this.registry.activate(def, build, { nowSec: this.nowSec() });
    } catch (e) {
      // The old build still serves: keep it consumed until the switch is retried.
      if (old && !this.stopped) slot.serving = await this.run(old.def, old.build);
      throw e;
    }
    slot.serving = slot.rebuilding;
    slot.rebuilding = undefined;
    this.metrics.activeBuild(def.name, build.version, build.buildId);
    this.opts.log.info(
      { projection: def.name, active: build.consumerGroup, retired: previous?.consumerGroup ?? null },
      'switched read views to the rebuilt projection',
    );
    await this.registry.dropObsolete(def.name, this.opts.keepRetiredBuilds ?? 0, build.buildId);
    await this.releaseLock(slot);
  }

  private async run(def: ProjectionDefinition, build: BuildRecord, onCaughtUp?: () => Promise<void>): Promise<BuildWorker> {
    const worker = new BuildWorker({
      def,
      build,
      consumer: this.factory!(),
      maxBatchSize: this.opts.maxBatchSize ?? 2000,
      batchTimeoutMs: this.opts.batchTimeoutMs,
      metrics: this.metrics,
      log: this.opts.log,
      onCaughtUp,
    });
    await worker.start();
    if (build.status === 'active') this.metrics.activeBuild(def.name, build.version, build.buildId);
    return worker;
  }

  private async stopWorker(slot: Slot, which: 'serving' | 'rebuilding'): Promise<void> {
    const w = slot[which];
    slot[which] = undefined;
    await w?.stop();
  }

  private async releaseLock(slot: Slot): Promise<void> {
    const lock = slot.lock;
    slot.lock = undefined;
    await lock?.release();
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private every(ms: number, fn: () => Promise<void>): void {
    let running: Promise<void> | undefined;
    const warnings = new RepeatedWarnings(this.opts.log);
    const t = setInterval(() => {
      if (running || this.stopped) return;
      const task: Promise<void> = fn()
        .then(
          () => warnings.recovered(),
          (e) => warnings.warn({ err: (e as Error).message }, 'projector background task failed'),
        )
        .finally(() => {
          running = undefined;
          this.background.delete(task);
        });
      running = task;
      this.background.add(task);
    }, ms);
    t.unref();
    this.timers.push(t);
  }
}
