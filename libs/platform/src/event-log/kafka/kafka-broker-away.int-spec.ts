import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '../../logging/logger';
import { REPEATED_WARNING_WINDOW_MS } from '../../logging/repeats';
import { freePort } from '../../testing/free-port';
import { describeWithKafka, kafkaRequired } from '../../testing/kafka-test-gate';
import { createTestDatabase, type TestDatabase } from '../../testing/test-database';
import type { EventLog, EventLogConsumer } from '../event-log.port';
import { eventLogMigrations } from '../migrations';
import { kafkaGroupId, openKafkaEventLog } from './kafka-event-log';

const run = promisify(execFile);
const SCRIPTS = resolve(__dirname, '../../../../../scripts/kafka');
const CRASHED = 'kafka consumer crashed; kafkajs restarts it';
const RESTARTING = /^Restarting the consumer in \d+ms$/;

interface Line {
  level: number;
  time: number;
  msg: string;
  group?: string;
  groupId?: string;
  err?: string;
  repeated?: number;
}

/**
 * A broker that goes away under joined consumer groups, as an operator's log meets it: a real
 * broker of the test's own (scripts/kafka, the jars the suite's broker was started from) on its own
 * ports, stopped while two groups are joined, then started again on the same data. kafkajs crashes
 * each group every few seconds while it cannot reach the broker, and restarts it. Each group's crash
 * is written once per window and then counted, and nothing is lost: every crash kafkajs restarts
 * from (its own "Restarting the consumer" line, which names the group) is written or counted.
 * Before, each crash wrote its own warning.
 */
const describeWithBroker = (name: string, fn: () => void) =>
  // A broker of its own needs Java (scripts/kafka); CI (REQUIRE_KAFKA) has it, a developer pointing
  // KAFKA_BROKERS at a broker in Docker may not: skipped then, visibly.
  spawnSync('java', ['-version']).status === 0 || kafkaRequired()
    ? describeWithKafka(name, fn)
    : describe.skip(`${name} [skipped: no java to start a broker of its own (scripts/kafka)]`, fn);

describeWithBroker('kafka consumer: the broker goes away under joined groups', () => {
  const groups = ['pools', 'swaps'];
  const prefix = `away${Date.now().toString(36)}`;
  const lines: Line[] = [];
  let runDir: string;
  let env: NodeJS.ProcessEnv;
  let db: TestDatabase;
  let eventLog: EventLog | undefined;
  const consumers: EventLogConsumer[] = [];
  const broker = (script: 'start.sh' | 'stop.sh', ...args: string[]) => run('bash', [join(SCRIPTS, script), ...args], { env, timeout: 120_000 });

  beforeAll(async () => {
    runDir = await mkdtemp(join(tmpdir(), 'kafka-away-'));
    env = { ...process.env, KAFKA_PORT: String(await freePort()), KAFKA_CONTROLLER_PORT: String(await freePort()), KAFKA_RUN_DIR: runDir };
    db = await createTestDatabase([eventLogMigrations]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop().catch(() => undefined)));
    await eventLog?.close();
    await broker('stop.sh').catch(() => undefined);
    await rm(runDir, { recursive: true, force: true });
    await db?.drop();
  }, 60_000);

  const until = async (what: string, done: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the log: ${JSON.stringify(lines.map((l) => l.msg))}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const joined = () => lines.filter((l) => l.msg === 'kafka consumer joined its group').length;
  const restartsOf = (group: string) => lines.filter((l) => RESTARTING.test(l.msg) && l.groupId === kafkaGroupId(prefix, group));

  it("writes each group's crash once per window and counts the rest; every restart is written or counted", async () => {
    const brokers = (await broker('start.sh', '--fresh')).stdout.trim().replace(/^KAFKA_BROKERS=/, '');
    const log = createLogger('away', 'info', { write: (l: string) => void lines.push(JSON.parse(l) as Line) }, 'json');
    eventLog = openKafkaEventLog({ kafkaBrokers: [brokers], kafkaClientId: 'away-spec', kafkaTopicPrefix: prefix, kafkaTopicPartitions: 1 }, log);
    for (const group of groups) {
      const c = eventLog.consumer(db.pool, db.url);
      consumers.push(c);
      await c.start({ group, clusters: ['devnet'], handler: async () => undefined });
    }
    await until('both groups to join', () => joined() >= groups.length, 30_000);

    // Away long enough for each group to crash and restart four times (about every 10 s here).
    await broker('stop.sh');
    await until('four restarts of each group', () => groups.every((g) => restartsOf(g).length >= 4), 150_000);
    // Nothing is proven unless some group crashed twice within one window.
    const times = groups.map((g) => restartsOf(g).map((l) => l.time));
    expect(times.some((t) => t.some((x, i) => i > 0 && x - t[i - 1] < REPEATED_WARNING_WINDOW_MS))).toBe(true);

    await broker('start.sh');
    await until('both groups to join again', () => joined() >= 2 * groups.length, 90_000);
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
    await eventLog.close(); // writes the counts still open
    eventLog = undefined;

    for (const group of groups) {
      const crashes = lines.filter((l) => l.level === 40 && l.group === group && l.msg.startsWith(CRASHED));
      const written = crashes.filter((l) => l.repeated === undefined);
      const counted = crashes.filter((l) => l.repeated !== undefined);
      expect(written.length).toBeGreaterThanOrEqual(1);
      // A kind (the group and its error) is written again only once a window has passed since it was.
      for (const [i, l] of written.entries()) {
        const before = written.slice(0, i).filter((w) => w.err === l.err);
        if (before.length) expect(l.time - before[before.length - 1].time).toBeGreaterThanOrEqual(REPEATED_WARNING_WINDOW_MS);
      }
      for (const l of counted) expect(l.msg).toMatch(/^kafka consumer crashed; kafkajs restarts it \(repeated \d+ times in \d+ s\)$/);
      // Every crash kafkajs restarted from is one of those written or counted.
      expect(written.length + counted.reduce((n, l) => n + l.repeated!, 0)).toBe(restartsOf(group).length);
    }
  }, 300_000);
});
