import type { HadronEvent } from '@hadron/contracts';
import type { EventLogProducer } from '@hadron/platform';

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
  ) {}

  async append(events: readonly HadronEvent[], writerEpoch?: bigint): Promise<void> {
    if (events.length === 0) return;
    await this.producer.append(events, writerEpoch === undefined ? undefined : { writerEpoch });
    this.onAppended(events);
  }
}
