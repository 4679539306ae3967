import { CLUSTERS, type Cluster } from '@hadron/contracts';
import { ConfigResourceTypes, type Admin, type ITopicMetadata } from 'kafkajs';
import type { Logger } from '../../logging/logger';

/** One topic per cluster; key = pool config address, so all facts of one pool stay in order. */
export const eventsTopic = (prefix: string, cluster: Cluster): string => `${prefix}.${cluster}.events`;
/** Where a consumer group sends the records it could not use (the DB's event_dead_letter holds them too). */
export const deadLetterTopic = (prefix: string, cluster: Cluster): string => `${eventsTopic(prefix, cluster)}.dlq`;

export function clusterOfTopic(prefix: string, topic: string): Cluster {
  const cluster = CLUSTERS.find((c) => eventsTopic(prefix, c) === topic);
  if (!cluster) throw new Error(`not an event topic of prefix ${prefix}: ${topic}`);
  return cluster;
}

/**
 * The log is the source of truth (DESIGN §1): read tables are rebuilt from it, so nothing may ever
 * age out or be compacted away.
 */
export const TOPIC_CONFIG: ReadonlyArray<{ name: string; value: string }> = [
  { name: 'retention.ms', value: '-1' },
  { name: 'cleanup.policy', value: 'delete' },
];

/**
 * Creates topics on first use, once per process. Several processes (indexer, projector, a replay)
 * may race to create the same topic; whoever loses sees "already exists", which is success here.
 */
export class KafkaTopics {
  private readonly ensured = new Map<string, Promise<void>>();

  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly partitions: number,
    private readonly log: Logger,
  ) {}

  ensure(topics: readonly string[]): Promise<void> {
    const missing = [...new Set(topics)].filter((t) => !this.ensured.has(t));
    if (missing.length > 0) {
      const creating = this.create(missing);
      for (const t of missing) this.ensured.set(t, creating);
      // A failed attempt is forgotten so the next call tries again.
      creating.catch(() => missing.forEach((t) => this.ensured.get(t) === creating && this.ensured.delete(t)));
    }
    return Promise.all(topics.map((t) => this.ensured.get(t))).then(() => undefined);
  }

  private async create(topics: string[]): Promise<void> {
    const admin = await this.admin();
    // Resolves false when every topic already existed; kafkajs swallows TOPIC_ALREADY_EXISTS.
    const created = await admin.createTopics({
      waitForLeaders: true,
      timeout: 15_000,
      topics: topics.map((topic) => ({ topic, numPartitions: this.partitions, configEntries: [...TOPIC_CONFIG] })),
    });
    if (created) {
      this.log.info({ topics, partitions: this.partitions }, 'kafka topics created');
      return;
    }
    await this.checkExisting(admin, topics);
  }

  /**
   * A pre-existing topic keeps its settings; say loudly when they contradict ours. The topic may
   * also be brand new from a process that won the creation race and still electing leaders, so
   * wait until its metadata is served, like the winner's createTopics does.
   */
  private async checkExisting(admin: Admin, topics: string[]): Promise<void> {
    const meta = await waitForMetadata(admin, topics);
    for (const t of meta) {
      if (t.partitions.length !== this.partitions) {
        this.log.warn(
          { topic: t.name, partitions: t.partitions.length, configured: this.partitions },
          'kafka topic exists with a different partition count; keeping it (changing it would move keys between partitions)',
        );
      }
    }
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: TOPIC_CONFIG.map((c) => c.name) })),
      });
      for (const r of resources) {
        for (const want of TOPIC_CONFIG) {
          const have = r.configEntries.find((e) => e.configName === want.name)?.configValue;
          if (have !== want.value) {
            this.log.error(
              { topic: r.resourceName, config: want.name, value: have, expected: want.value },
              'kafka topic config puts the event history at risk: the log is the source of truth and must keep everything',
            );
          }
        }
      }
    } catch (e) {
      this.log.warn({ err: (e as Error).message, topics }, 'could not check kafka topic configs');
    }
  }
}

async function waitForMetadata(admin: Admin, topics: string[], timeoutMs = 15_000): Promise<ITopicMetadata[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: meta } = await admin.fetchTopicMetadata({ topics });
      if (meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return meta;
    } catch (e) {
      const type = (e as { type?: string }).type;
      if (type !== 'UNKNOWN_TOPIC_OR_PARTITION' && type !== 'LEADER_NOT_AVAILABLE') throw e;
      if (Date.now() > until) throw e;
    }
    if (Date.now() > until) throw new Error(`kafka topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
