import type { HadronEvent } from '@hadron/contracts';
import { toRawRecords, type EventLogProducer } from '@hadron/platform';

/**
 * Appends the indexer's events to the event log. `append` resolves once they are durable; only then
 * may the cursor move past them. Re-appending after a crash is harmless: ids are deterministic, the
 * Postgres log ignores a known id, and on Kafka projections drop duplicates by id.
 */
export interface EventSink {
  /** `writerEpoch`: the cluster lease's epoch the append is fenced by, recorded with each record (see the indexer README). */
  append(events: readonly HadronEvent[], writerEpoch?: bigint): Promise<void>;
}

export class EventPublisher implements EventSink {
  constructor(
    private readonly producer: EventLogProducer,
    private readonly onAppended: (events: readonly HadronEvent[]) => void = () => undefined,
    /** Seconds spent validating and serializing the events of one append (thread time; its cluster is the events'). */
    private readonly onEncoded: (cluster: HadronEvent['cluster'], seconds: number) => void = () => undefined,
  ) {}

  async append(events: readonly HadronEvent[], writerEpoch?: bigint): Promise<void> {
    if (events.length === 0) return;
    // What producer.append does, in two steps so the encoding is timed apart from the write.
    const started = performance.now();
    const records = toRawRecords(events);
    this.onEncoded(events[0].cluster, (performance.now() - started) / 1000);
    await this.producer.appendRaw(records, writerEpoch === undefined ? undefined : { writerEpoch });
    this.onAppended(events);
  }
}
