import { CLUSTERS } from '@hadron/contracts';
import { BatchTimeoutError } from '@hadron/platform/event-log/checkpointed-batch';
import type { ConsumeFailure, EventLogConsumer, OwnedPartitions } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import { guardBuild, type BuildRecord } from '../builds/build-registry';
import type { ProjectorMetrics } from '../metrics/projector-metrics';
import type { ProjectionDefinition } from '../projection';
import { quoteIdent } from '../sql/identifiers';

/** Makes a consumer of the event log (Postgres or Kafka adapter); one per build being consumed. */
export type ConsumerFactory = () => EventLogConsumer;

/** Transient failures in a row for longer than this also count as a stall. */
const TRANSIENT_STALL_MS = 30_000;

export interface BuildWorkerOptions {
  def: ProjectionDefinition;
  build: BuildRecord;
  consumer: EventLogConsumer;
  maxBatchSize: number;
  batchTimeoutMs?: number;
  metrics: ProjectorMetrics;
  log: Logger;
  /** For a `building` build: called once it has applied everything in the log (lag 0). */
  onCaughtUp?: () => Promise<void>;
  onCommitted?: (events: number) => void;
}

/** Why a worker is not advancing: the last failure of each stream/partition that has not committed since. */
export interface WorkerHealth {
  stalled: boolean;
  failing: Array<{ stream: string; partition: number; error: string; transient: boolean; failures: number; sinceMs: number }>;
}

/**
 * Consumes the log into one build: the build's consumer group, the build's schema, only the
 * event types its projection reads. For a build still catching up it also watches for "caught
 * up", cheaply: the log's lag is asked only after a short batch or a read that found nothing (the
 * tail was reached: ConsumeOptions.onTail), or when no batch has committed for a second. Failed
 * batch attempts (the consumer retries them) are tracked per stream/partition until one of its
 * batches commits: health() and the metrics say when the worker is stalled.
 */
export class BuildWorker {
  readonly def: ProjectionDefinition;
  readonly build: BuildRecord;
  private readonly consumer: EventLogConsumer;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  /** The lag query of a caught-up check in flight: stop() waits for it, never for onCaughtUp. */
  private lagQuery?: Promise<unknown>;
  private caughtUp = false;
  private stopped = false;
  private lastCommitAt = Date.now();
  private lastCheckAt = 0;
  private readonly failing = new Map<string, ConsumeFailure & { sinceMs: number }>();

  constructor(private readonly opts: BuildWorkerOptions) {
    this.def = opts.def;
    this.build = opts.build;
    this.consumer = opts.consumer;
  }

  async start(): Promise<void> {
    const { def, build, maxBatchSize, batchTimeoutMs, metrics } = this.opts;
    const schema = quoteIdent(build.schemaName);
    await this.consumer.start({
      group: build.consumerGroup,
      // Always every cluster: on the Postgres log the checkpoint is one position for all of them.
      clusters: CLUSTERS,
      types: def.eventTypes,
      maxBatchSize,
      batchTimeoutMs,
      handler: guardBuild(build, def.createHandler(schema), def.createBuildingHandler?.(schema)),
      onCommitted: ({ count, deadLettered, positions }) => {
        this.lastCommitAt = Date.now();
        metrics.batchCommitted(def.name, { events: count, deadLettered });
        if (this.failing.size > 0) {
          for (const p of positions) this.failing.delete(`${p.stream}/${p.partition}`);
          metrics.stalled(def.name, this.health().stalled);
        }
        this.opts.onCommitted?.(count);
        if (positions.length < maxBatchSize) this.checkCaughtUp(500);
      },
      // The log had nothing more for the group (a replay whose last batch was full ends here).
      onTail: () => this.checkCaughtUp(0),
      onError: (failure) => {
        const key = `${failure.stream}/${failure.partition}`;
        this.failing.set(key, { ...failure, sinceMs: this.failing.get(key)?.sinceMs ?? Date.now() });
        metrics.batchFailed(def.name, { transient: failure.transient, overdue: failure.error instanceof BatchTimeoutError });
        metrics.stalled(def.name, this.health().stalled);
      },
    });
    if (this.opts.onCaughtUp) {
      this.timer = setInterval(() => {
        if (Date.now() - this.lastCommitAt > 1000) this.checkCaughtUp(1000);
      }, 250);
      this.timer.unref();
    }
  }

  lag(): Promise<bigint> {
    return this.consumer.lag();
  }

  /** This replica's share of the build's group: the partitions it owns now, with their lag. */
  owned(): Promise<OwnedPartitions> {
    return this.consumer.owned();
  }

  health(now = Date.now()): WorkerHealth {
    const failing = [...this.failing.values()].map((f) => ({
      stream: f.stream,
      partition: f.partition,
      error: f.error.message,
      transient: f.transient,
      failures: f.consecutiveFailures,
      sinceMs: f.sinceMs,
    }));
    return { stalled: failing.some((f) => !f.transient || now - f.sinceMs > TRANSIENT_STALL_MS), failing };
  }

  /**
   * Stops consuming. It does not wait for an onCaughtUp in flight: that callback (the runner's
   * switch) may be queued behind the very caller stopping this worker, and it re-checks that the
   * worker is still the one to switch to.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.lagQuery?.catch(() => undefined);
    await this.consumer.stop();
  }

  private checkCaughtUp(minIntervalMs: number): void {
    if (!this.opts.onCaughtUp || this.caughtUp || this.stopped || this.checking || Date.now() - this.lastCheckAt < minIntervalMs) return;
    this.lastCheckAt = Date.now();
    this.checking = (async () => {
      const lag = this.consumer.lag();
      this.lagQuery = lag;
      if ((await lag) !== 0n || this.stopped) return;
      await this.opts.onCaughtUp!();
      this.caughtUp = true;
      clearInterval(this.timer);
    })()
      .catch((e) =>
        this.opts.log.error({ err: (e as Error).message, group: this.build.consumerGroup }, 'could not complete the switch to a caught-up build; will retry'),
      )
      .finally(() => {
        this.checking = undefined;
        this.lagQuery = undefined;
      });
  }
}
