import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OwnedPartitions } from '@hadron/platform/event-log/event-log.port';

/** One build this replica consumes, and its share of the build's consumer group. */
export interface BuildOwnership {
  projection: string;
  group: string;
  owned: OwnedPartitions;
}

/** What the projector reports; the runner and replay only see this interface. */
export interface ProjectorMetrics {
  batchCommitted(projection: string, info: { events: number; deadLettered: number }): void;
  lag(projection: string, events: bigint): void;
  activeBuild(projection: string, version: number, buildId: string): void;
  /** A batch attempt failed (it is retried); `transient` = connection loss, deadlock… */
  /** `overdue`: the batch ran past its deadline (BatchTimeoutError). */
  batchFailed(projection: string, info: { transient: boolean; overdue?: boolean }): void;
  /** Whether the projection's consumer is stuck on a failure (cleared by the next commit). */
  stalled(projection: string, stalled: boolean): void;
  /** What this replica consumes now, every build it runs: replaces the previous report (a build not listed loses its series). */
  ownership(builds: readonly BuildOwnership[]): void;
}

export const noMetrics: ProjectorMetrics = {
  batchCommitted: () => undefined,
  lag: () => undefined,
  activeBuild: () => undefined,
  batchFailed: () => undefined,
  stalled: () => undefined,
  ownership: () => undefined,
};

/**
 * Prometheus metrics (prom-client). Expose `registry.metrics()` on /metrics. `events_per_second`
 * is the rate since the previous scrape, for dashboards without PromQL; prefer
 * rate(hadron_projector_events_total[1m]).
 */
export class PromProjectorMetrics implements ProjectorMetrics {
  readonly registry: Registry;
  private readonly events: Counter<'projection'>;
  private readonly batches: Histogram<'projection'>;
  private readonly deadLetters: Counter<'projection'>;
  private readonly lagGauge: Gauge<'projection'>;
  private readonly build: Gauge<'projection' | 'version' | 'build'>;
  private readonly failures: Counter<'projection' | 'kind'>;
  private readonly stalledGauge: Gauge<'projection'>;
  private readonly counted = new Map<string, number>();
  private readonly lastScrape = new Map<string, { at: number; count: number }>();
  private readonly served = new Map<string, { projection: string; version: string; build: string }>();
  private readonly ownedGauge: Gauge<'projection' | 'group' | 'topic'>;
  private readonly partitionLagGauge: Gauge<'projection' | 'group' | 'topic' | 'partition'>;
  /** Label sets of the last ownership report, to remove what is no longer owned. */
  private ownedSeries: Array<Record<'projection' | 'group' | 'topic', string>> = [];
  private lagSeries: Array<Record<'projection' | 'group' | 'topic' | 'partition', string>> = [];

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.events = new Counter({
      name: 'hadron_projector_events_total',
      help: 'Events applied (including dead-lettered ones) per projection',
      labelNames: ['projection'],
      registers,
    });
    this.batches = new Histogram({
      name: 'hadron_projector_batch_size',
      help: 'Events per committed batch',
      labelNames: ['projection'],
      buckets: [1, 10, 50, 100, 500, 1000, 2000, 5000, 10000],
      registers,
    });
    this.deadLetters = new Counter({
      name: 'hadron_projector_dead_letters_total',
      help: 'Events dead-lettered per projection',
      labelNames: ['projection'],
      registers,
    });
    this.lagGauge = new Gauge({
      name: 'hadron_projector_lag_events',
      help: "Events in the log not yet applied by the serving build's consumer group (the whole group: the same on every replica; this replica's share is hadron_projector_partition_lag_events)",
      labelNames: ['projection'],
      registers,
    });
    this.ownedGauge = new Gauge({
      name: 'hadron_projector_partitions_owned',
      help: 'Partitions of the topic this replica consumes for the group (Kafka: its assignment; Postgres log: 1 while it holds the group lock, 0 as a standby); 0 = idle for that group',
      labelNames: ['projection', 'group', 'topic'],
      registers,
    });
    this.partitionLagGauge = new Gauge({
      name: 'hadron_projector_partition_lag_events',
      help: "Records past the group's checkpoint (high watermark − processed offset) in each partition this replica owns; no series for partitions it does not own",
      labelNames: ['projection', 'group', 'topic', 'partition'],
      registers,
    });
    this.build = new Gauge({
      name: 'hadron_projector_active_build',
      help: '1 for the build being served',
      labelNames: ['projection', 'version', 'build'],
      registers,
    });
    this.failures = new Counter({
      name: 'hadron_projector_batch_failures_total',
      help: 'Failed batch attempts per projection (retried); kind=transient (connection, deadlock…), fatal (a bug, a missing table…: the consumer stalls) or deadline (ran past PROJECTOR_BATCH_TIMEOUT_MS: its session was ended)',
      labelNames: ['projection', 'kind'],
      registers,
    });
    this.stalledGauge = new Gauge({
      name: 'hadron_projector_stalled',
      help: '1 while the projection consumer is stuck on a non-transient failure (or transient ones for over 30 s); alert on it',
      labelNames: ['projection'],
      registers,
    });
    const counted = this.counted;
    const lastScrape = this.lastScrape;
    new Gauge({
      name: 'hadron_projector_events_per_second',
      help: 'Events applied per second since the previous scrape',
      labelNames: ['projection'],
      registers,
      collect() {
        const now = Date.now();
        for (const [projection, count] of counted) {
          const prev = lastScrape.get(projection);
          const rate = prev && now > prev.at ? ((count - prev.count) * 1000) / (now - prev.at) : 0;
          this.set({ projection }, rate);
          lastScrape.set(projection, { at: now, count });
        }
      },
    });
  }

  batchCommitted(projection: string, info: { events: number; deadLettered: number }): void {
    this.events.inc({ projection }, info.events);
    this.batches.observe({ projection }, info.events);
    if (info.deadLettered > 0) this.deadLetters.inc({ projection }, info.deadLettered);
    this.counted.set(projection, (this.counted.get(projection) ?? 0) + info.events);
  }

  lag(projection: string, events: bigint): void {
    this.lagGauge.set({ projection }, Number(events));
  }

  batchFailed(projection: string, info: { transient: boolean; overdue?: boolean }): void {
    this.failures.inc({ projection, kind: info.overdue ? 'deadline' : info.transient ? 'transient' : 'fatal' });
  }

  stalled(projection: string, stalled: boolean): void {
    this.stalledGauge.set({ projection }, stalled ? 1 : 0);
  }

  ownership(builds: readonly BuildOwnership[]): void {
    const owned: typeof this.ownedSeries = [];
    const lags: typeof this.lagSeries = [];
    for (const { projection, group, owned: o } of builds) {
      for (const topic of o.streams) {
        const labels = { projection, group, topic };
        this.ownedGauge.set(labels, o.partitions.filter((p) => p.stream === topic).length);
        owned.push(labels);
      }
      for (const p of o.partitions) {
        const labels = { projection, group, topic: p.stream, partition: String(p.partition) };
        this.partitionLagGauge.set(labels, Number(p.lag));
        lags.push(labels);
      }
    }
    const key = (l: Record<string, string>) => JSON.stringify(Object.entries(l).sort());
    const keptOwned = new Set(owned.map(key));
    for (const l of this.ownedSeries) if (!keptOwned.has(key(l))) this.ownedGauge.remove(l);
    const keptLags = new Set(lags.map(key));
    for (const l of this.lagSeries) if (!keptLags.has(key(l))) this.partitionLagGauge.remove(l);
    this.ownedSeries = owned;
    this.lagSeries = lags;
  }

  activeBuild(projection: string, version: number, buildId: string): void {
    const previous = this.served.get(projection);
    if (previous) this.build.remove(previous);
    const labels = { projection, version: String(version), build: buildId };
    this.served.set(projection, labels);
    this.build.set(labels, 1);
  }
}
