import type { Logger } from '@hadron/platform/logging/logger';
import type { Pool } from 'pg';
import { BuildRegistry, finishDeferred, ProjectionLock, type BuildRecord } from '../builds/build-registry';
import { noMetrics, type ProjectorMetrics } from '../metrics/projector-metrics';
import type { ProjectionDefinition } from '../projection';
import { BuildWorker, type ConsumerFactory } from '../runner/build-worker';

export interface RebuildProgress {
  group: string;
  done: number;
  /** done + events still in the log (estimated between lag reads). */
  total: number;
  perSecond: number;
  etaSeconds: number | null;
  elapsedSeconds: number;
  /**
   * Set once the build has caught up and is writing what its replay deferred (swaps: the running
   * totals, ProjectionDefinition.finishBuild), before the switch: seconds so far.
   */
  finishingSeconds?: number;
}

export interface RebuildOptions {
  pool: Pool;
  consumerFactory: ConsumerFactory;
  log: Logger;
  metrics?: ProjectorMetrics;
  maxBatchSize?: number;
  /** ConsumeOptions.batchTimeoutMs (default: the event log's, 5 minutes). */
  batchTimeoutMs?: number;
  keepRetiredBuilds?: number;
  /** Called at least every `progressEveryMs` (default 1000) while replaying, and once at the end. */
  onProgress?: (p: RebuildProgress) => void;
  progressEveryMs?: number;
  /** How often the log's lag is re-read to correct the total (it costs a count on the Postgres log). */
  lagEveryMs?: number;
}

export interface RebuildResult {
  build: BuildRecord;
  previous: BuildRecord | null;
  dropped: BuildRecord[];
  events: number;
  seconds: number;
}

/**
 * Replays the whole log into a fresh build of `def` under a new consumer group, then switches the
 * `read` views to it in one transaction (the old build serves until then) and drops the old build
 * (keeping `keepRetiredBuilds`). A projector runner in another process follows the switch.
 */
export async function rebuildProjection(def: ProjectionDefinition, opts: RebuildOptions): Promise<RebuildResult> {
  const lock = await ProjectionLock.tryAcquire(opts.pool, def.name);
  if (!lock) throw new Error(`another rebuild of "${def.name}" is running (a replay, or a projector upgrading it); try again when it is done`);
  const registry = new BuildRegistry(opts.pool);
  try {
    // Unfinished builds of killed replays (we hold the lock: nobody is building them) and extra retired ones.
    const droppedBefore = await registry.dropObsolete(def.name, opts.keepRetiredBuilds ?? 0);
    const build = await registry.create(def);
    const started = Date.now();
    let done = 0;
    let caughtUp!: () => void;
    const finished = new Promise<void>((r) => (caughtUp = r));
    const worker = new BuildWorker({
      def,
      build,
      consumer: opts.consumerFactory(),
      maxBatchSize: opts.maxBatchSize ?? 5000,
      batchTimeoutMs: opts.batchTimeoutMs,
      metrics: opts.metrics ?? noMetrics,
      log: opts.log,
      onCommitted: (n) => (done += n),
      onCaughtUp: async () => caughtUp(),
    });
    await worker.start();
    opts.log.info({ projection: def.name, group: build.consumerGroup, schema: build.schemaName }, 'replay started');

    let lagAt = { done: 0, lag: await worker.lag() };
    let lagReading: Promise<void> | undefined;
    let lastLagAt = Date.now();
    let finishingSince: number | undefined;
    const progress = (): RebuildProgress => {
      const elapsed = (Date.now() - started) / 1000;
      const remaining = Math.max(0, Number(lagAt.lag) - (done - lagAt.done));
      const perSecond = elapsed > 0 ? done / elapsed : 0;
      return {
        group: build.consumerGroup,
        done,
        total: done + remaining,
        perSecond,
        etaSeconds: perSecond > 0 ? remaining / perSecond : null,
        elapsedSeconds: elapsed,
        ...(finishingSince === undefined ? {} : { finishingSeconds: (Date.now() - finishingSince) / 1000 }),
      };
    };
    const ticker = setInterval(() => {
      opts.onProgress?.(progress());
      if (finishingSince === undefined && !lagReading && Date.now() - lastLagAt >= (opts.lagEveryMs ?? 10_000)) {
        const at = done;
        lagReading = worker
          .lag()
          .then((lag) => void (lagAt = { done: at, lag }))
          .catch(() => undefined)
          .finally(() => {
            lastLagAt = Date.now();
            lagReading = undefined;
          });
      }
    }, opts.progressEveryMs ?? 1000);
    let previous: BuildRecord | null;
    try {
      try {
        await finished;
        lagAt = { done, lag: 0n };
        // Progress goes on while the deferred tables are written (it can take a while on a long history).
        if (def.finishBuild) finishingSince = Date.now();
        await finishDeferred(registry, def, build, opts.log);
      } finally {
        clearInterval(ticker);
      }
      previous = await registry.activate(def, build);
    } finally {
      await worker.stop(); // drains its last batch; a runner elsewhere takes the group over
    }
    finishingSince = undefined;
    opts.onProgress?.(progress());
    const dropped = [...droppedBefore, ...(await registry.dropObsolete(def.name, opts.keepRetiredBuilds ?? 0, build.buildId))];
    const seconds = (Date.now() - started) / 1000;
    opts.log.info(
      { projection: def.name, active: build.consumerGroup, retired: previous?.consumerGroup ?? null, events: done, seconds },
      'replay finished; read views switched',
    );
    return { build, previous, dropped, events: done, seconds };
  } finally {
    await lock.release();
  }
}

export function formatProgress(projection: string, p: RebuildProgress): string {
  const pct = p.total > 0 ? ((100 * p.done) / p.total).toFixed(1) : '100.0';
  const eta = p.etaSeconds === null ? '?' : `${Math.ceil(p.etaSeconds)}s`;
  const line = `replay ${projection} [${p.group}] ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')} events (${pct}%) ${Math.round(p.perSecond).toLocaleString('en-US')} ev/s ETA ${eta} elapsed ${p.elapsedSeconds.toFixed(0)}s`;
  return p.finishingSeconds === undefined ? line : `${line}; caught up, writing the tables the replay deferred for ${p.finishingSeconds.toFixed(0)}s`;
}
