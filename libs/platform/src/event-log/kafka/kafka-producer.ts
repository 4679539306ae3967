import type { HadronEvent } from '@hadron/contracts';
import type { Message, Producer } from 'kafkajs';
import type { AppendOptions, EventLogProducer, RawLogRecord } from '../event-log.port';
import { toRawRecords } from '../postgres/postgres-event-log';
import { eventsTopic, type KafkaTopics } from './kafka-topics';

/**
 * One produce request stays well under the broker's default message.max.bytes (1 MiB per
 * partition batch); a large append goes out as several requests, in order.
 */
const CHUNK_BYTES = 512 * 1024;
const CHUNK_RECORDS = 2000;

/**
 * Kafka log producer: topic per cluster, key = pool, value = the event JSON, headers `event-id` and
 * `event-type` (when known: consumers skip the types they do not read without parsing them), and
 * `writer-epoch` when the appender is fenced (AppendOptions).
 * The kafkajs producer is idempotent with one request in flight, so broker-side retries never
 * reorder or duplicate within a session. Appends are serialised in call order, so per-key order
 * holds across calls even when callers do not await each other. A re-append after a failure can
 * duplicate records; projections key by event id.
 */
export class KafkaEventLogProducer implements EventLogProducer {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly producer: Producer,
    private readonly topics: KafkaTopics,
    private readonly prefix: string,
    private readonly onClose: () => void,
  ) {}

  async append(events: readonly HadronEvent[], options?: AppendOptions): Promise<void> {
    return this.appendRaw(toRawRecords(events), options);
  }

  async appendRaw(records: readonly RawLogRecord[], options: AppendOptions = {}): Promise<void> {
    if (records.length === 0) return;
    const sent = this.tail.then(() => this.send(records, options.writerEpoch));
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  async close(): Promise<void> {
    this.onClose();
    await this.producer.disconnect();
  }

  private async send(records: readonly RawLogRecord[], writerEpoch: bigint | undefined): Promise<void> {
    await this.topics.ensure(records.map((r) => eventsTopic(this.prefix, r.cluster)));
    for (const chunk of chunks(records)) {
      const byTopic = new Map<string, Message[]>();
      for (const r of chunk) {
        const topic = eventsTopic(this.prefix, r.cluster);
        const messages = byTopic.get(topic) ?? [];
        const headers: Record<string, string> = r.type ? { 'event-id': r.id, 'event-type': r.type } : { 'event-id': r.id };
        if (writerEpoch !== undefined) headers['writer-epoch'] = writerEpoch.toString();
        messages.push({ key: r.key, value: r.payload, headers });
        byTopic.set(topic, messages);
      }
      // acks -1: resolves only once every in-sync replica has the records.
      await this.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
    }
  }
}

function* chunks(records: readonly RawLogRecord[]): Generator<RawLogRecord[]> {
  let chunk: RawLogRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = Buffer.byteLength(r.payload) + Buffer.byteLength(r.key) + Buffer.byteLength(r.id) + 96;
    if (chunk.length > 0 && (bytes + size > CHUNK_BYTES || chunk.length >= CHUNK_RECORDS)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(r);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}
