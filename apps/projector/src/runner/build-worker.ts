import { CLUSTERS } from '@hadron/contracts';
import type { EventLogConsumer } from '@hadron/platform/event-log/event-log.port';
import type { Logger } from '@hadron/platform/logging/logger';
import { guardBuild, type BuildRecord } from '../builds/build-registry';
import type { ProjectorMetrics } from '../metrics/projector-metrics';
import type { ProjectionDefinition } from '../projection';
import { quoteIdent } from '../sql/identifiers';

/** Makes a consumer of the event log (Postgres or Kafka adapter); one per build being consumed. */
export type ConsumerFactory = () => EventLogConsumer;

export interface BuildWorkerOptions {
  def: ProjectionDefinition;
  build: BuildRecord;
  consumer: EventLogConsumer;
  maxBatchSize: number;
  metrics: ProjectorMetrics;
  log: Logger;
  /** For a `building` build: called once it has applied everything in the log (lag 0). */
  onCaughtUp?: () => Promise<void>;
  onCommitted?: (events: number) => void;
}

/**
 * Consumes the log into one build: the build's consumer group, the build's schema. For a build
 * still catching up it also watches for "caught up", cheaply: the log's lag is asked only after a
 * short batch (the tail was reached) or when no batch has committed for a second.
 */
export class BuildWorker {
  readonly def: ProjectionDefinition;
  readonly build: BuildRecord;
  private readonly consumer: EventLogConsumer;
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;
  private caughtUp = false;
  private lastCommitAt = Date.now();
  private lastCheckAt = 0;

  constructor(private readonly opts: BuildWorkerOptions) {
    this.def = opts.def;
    this.build = opts.build;
    this.consumer = opts.consumer;
  }

  async start(): Promise<void> {
    const { def, build, maxBatchSize, metrics } = this.opts;
    await this.consumer.start({
      group: build.consumerGroup,
      // Always every cluster: on the Postgres log the checkpoint is one position for all of them.
      clusters: CLUSTERS,
      maxBatchSize,
      handler: guardBuild(build, def.createHandler(quoteIdent(build.schemaName))),
      onCommitted: ({ count, deadLettered, positions }) => {
        this.lastCommitAt = Date.now();
        metrics.batchCommitted(def.name, { events: count, deadLettered });
        this.opts.onCommitted?.(count);
        if (positions.length < maxBatchSize) this.checkCaughtUp(500);
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

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await this.consumer.stop();
  }

  private checkCaughtUp(minIntervalMs: number): void {
    if (!this.opts.onCaughtUp || this.caughtUp || this.checking || Date.now() - this.lastCheckAt < minIntervalMs) return;
    this.lastCheckAt = Date.now();
    this.checking = (async () => {
      if ((await this.consumer.lag()) !== 0n) return;
      await this.opts.onCaughtUp!();
      this.caughtUp = true;
      clearInterval(this.timer);
    })()
      .catch((e) => this.opts.log.error({ err: (e as Error).message, group: this.build.consumerGroup }, 'could not complete the switch to a caught-up build; will retry'))
      .finally(() => (this.checking = undefined));
  }
}
