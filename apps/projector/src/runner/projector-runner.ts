import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import type { Pool } from 'pg';
import { BuildRegistry, ProjectionLock, type BuildRecord } from '../builds/build-registry';
import { noMetrics, type ProjectorMetrics } from '../metrics/projector-metrics';
import type { ProjectionDefinition } from '../projection';
import { ALL_PROJECTIONS } from '../projections';
import { quoteIdent } from '../sql/identifiers';
import { BuildWorker, type ConsumerFactory } from './build-worker';

export interface ProjectorRunnerOptions {
  /** The read database (read tables, registry, and the consumer checkpoints). */
  pool: Pool;
  log: Logger;
  metrics?: ProjectorMetrics;
  projections?: readonly ProjectionDefinition[];
  maxBatchSize?: number;
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
  status: BuildRecord['status'];
  lag: bigint;
}

export interface ProjectorLag {
  total: bigint;
  projections: ProjectionLag[];
}

/**
 * Runs every projection: for each, the consumer group of its active build (recorded in
 * projector.projection_builds, so a restart resumes the same build and group). If the active
 * build is of an older version than the code (or missing), it rebuilds in place: a new build
 * catches up from the start of the log while the old one keeps serving, then the `read` views
 * switch in one transaction. It also follows switches made by `npm run replay` in another process,
 * and runs each projection's wall-clock refresh (24 h pool stats) on the active build.
 */
export class ProjectorRunner {
  private readonly registry: BuildRegistry;
  private readonly defs: readonly ProjectionDefinition[];
  private readonly metrics: ProjectorMetrics;
  private readonly workers = new Map<string, BuildWorker>();
  private readonly locks = new Map<string, ProjectionLock>();
  private readonly timers: NodeJS.Timeout[] = [];
  private factory?: ConsumerFactory;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: ProjectorRunnerOptions) {
    this.registry = new BuildRegistry(opts.pool);
    this.defs = opts.projections ?? ALL_PROJECTIONS;
    this.metrics = opts.metrics ?? noMetrics;
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
    await this.queue;
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
    this.workers.clear();
    for (const lock of this.locks.values()) await lock.release();
    this.locks.clear();
  }

  /** Lag of the build being consumed for each projection (also published as a metric). */
  async lag(): Promise<ProjectorLag> {
    const projections: ProjectionLag[] = [];
    for (const w of this.workers.values()) {
      const lag = await w.lag();
      this.metrics.lag(w.def.name, lag);
      projections.push({ projection: w.def.name, version: w.build.version, buildId: w.build.buildId, status: w.build.status, lag });
    }
    return { total: projections.reduce((a, p) => a + p.lag, 0n), projections };
  }

  /** Recomputes wall-clock caches of a projection's active build now (the timer does it every few seconds). */
  async refresh(def: ProjectionDefinition): Promise<void> {
    const w = this.workers.get(def.name);
    if (!def.refresh || !w || w.build.status !== 'active') return;
    const nowSec = this.opts.nowSec?.() ?? Math.floor(Date.now() / 1000);
    await def.refresh(this.opts.pool as unknown as SqlTx, quoteIdent(w.build.schemaName), nowSec).catch((e) =>
      this.opts.log.warn({ err: (e as Error).message, projection: def.name }, 'refresh failed; will retry'),
    );
  }

  private async reconcile(): Promise<void> {
    for (const def of this.defs) {
      if (this.stopped) return;
      await this.reconcileOne(def).catch((e) => this.opts.log.error({ err: (e as Error).message, projection: def.name }, 'projection reconcile failed; will retry'));
    }
  }

  private async reconcileOne(def: ProjectionDefinition): Promise<void> {
    const active = await this.registry.active(def.name);
    const current = this.workers.get(def.name);
    const version = def.schema.version;
    if (active && active.version === version) {
      if (current?.build.buildId === active.buildId) return;
      if (current) {
        // Another process (npm run replay) switched to a new build: follow it.
        this.opts.log.info({ projection: def.name, from: current.build.consumerGroup, to: active.consumerGroup }, 'active build changed; following it');
        await this.retire(def.name);
      }
      await this.run(def, active);
      return;
    }
    if (active && active.version > version) {
      if (current) await this.retire(def.name);
      this.opts.log.warn({ projection: def.name, active: active.version, code: version }, 'the active build is newer than this code; not consuming it');
      return;
    }
    if (current) return; // our rebuild is under way
    const lock = await ProjectionLock.tryAcquire(this.opts.pool, def.name);
    if (!lock) return; // another process is rebuilding it
    this.locks.set(def.name, lock);
    const unfinished = (await this.registry.list(def.name)).filter((b) => b.status === 'building' && b.version === version).pop();
    const build = unfinished ?? (await this.registry.create(def));
    this.opts.log.info({ projection: def.name, group: build.consumerGroup, serving: active?.consumerGroup ?? null, resumed: !!unfinished }, 'rebuilding projection');
    await this.run(def, build, async () => {
      const previous = await this.registry.activate(def, build);
      this.metrics.activeBuild(def.name, build.version, build.buildId);
      this.opts.log.info({ projection: def.name, active: build.consumerGroup, retired: previous?.consumerGroup ?? null }, 'switched read views to the rebuilt projection');
      await this.registry.dropObsolete(def.name, this.opts.keepRetiredBuilds ?? 0, build.buildId);
      await this.locks.get(def.name)?.release();
      this.locks.delete(def.name);
    });
  }

  private async run(def: ProjectionDefinition, build: BuildRecord, onCaughtUp?: () => Promise<void>): Promise<void> {
    const worker = new BuildWorker({
      def,
      build,
      consumer: this.factory!(),
      maxBatchSize: this.opts.maxBatchSize ?? 2000,
      metrics: this.metrics,
      log: this.opts.log,
      onCaughtUp,
    });
    this.workers.set(def.name, worker);
    await worker.start();
    if (build.status === 'active') this.metrics.activeBuild(def.name, build.version, build.buildId);
  }

  private async retire(projection: string): Promise<void> {
    const w = this.workers.get(projection);
    this.workers.delete(projection);
    await w?.stop();
    await this.locks.get(projection)?.release();
    this.locks.delete(projection);
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(fn, fn);
    return this.queue;
  }

  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy || this.stopped) return;
      busy = true;
      fn()
        .catch((e) => this.opts.log.warn({ err: (e as Error).message }, 'projector background task failed'))
        .finally(() => (busy = false));
    }, ms);
    t.unref();
    this.timers.push(t);
  }
}
