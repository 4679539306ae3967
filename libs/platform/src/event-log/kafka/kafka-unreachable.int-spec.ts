import { createLogger } from '../../logging/logger';
import { freePort } from '../../testing/free-port';
import { openKafkaEventLog } from './kafka-event-log';

interface Line {
  level: number;
  msg: string;
  namespace?: string;
  repeated?: number;
}

/**
 * A broker that is down, as kafkajs meets it (a real client against a loopback port nobody
 * listens on): while the producer retries its connection, kafkajs warns on every attempt. An
 * operator should read that once, then how often it repeated, not one line per attempt per client.
 */
describe('kafka event log: a broker that cannot be reached', () => {
  /** One producer's connection attempts (kafkajs retries for about 10 s, then gives up), logged at `level`. */
  async function attempt(level: string): Promise<{ beforeClose: Line[]; afterClose: Line[] }> {
    const lines: Line[] = [];
    const log = createLogger('unreachable', level, { write: (l: string) => void lines.push(JSON.parse(l)) }, 'json');
    const eventLog = openKafkaEventLog(
      { kafkaBrokers: [`127.0.0.1:${await freePort()}`], kafkaClientId: 'unreachable-spec', kafkaTopicPrefix: 'unreachable', kafkaTopicPartitions: 1 },
      log,
    );
    await expect(eventLog.producer()).rejects.toThrow(/ECONNREFUSED/);
    const beforeClose = [...lines];
    await eventLog.close();
    return { beforeClose, afterClose: lines.slice(beforeClose.length) };
  }
  const refused = (l: Line) => l.namespace === 'Connection' && /ECONNREFUSED/.test(l.msg);

  it('each warning is written once, and its repeats are counted in one line when the log closes; at debug, every attempt is written', async () => {
    const [info, debug] = await Promise.all([attempt('info'), attempt('debug')]);

    // At debug, the operator sees every attempt: this is how many there were.
    const attempts = debug.beforeClose.filter(refused).length;
    expect(attempts).toBeGreaterThanOrEqual(4);

    // At info: once, at warn, saying what failed; the rest counted, not written.
    const written = info.beforeClose.filter(refused);
    expect(written).toHaveLength(1);
    expect(written[0].level).toBe(40);
    const counted = info.afterClose.filter(refused);
    expect(counted).toHaveLength(1);
    expect(counted[0].msg).toMatch(/ECONNREFUSED.*\(repeated \d+ times in \d+ s\)$/);
    // Every attempt is written or counted (the two clients retry on the same schedule, give or take one).
    expect(Math.abs(1 + counted[0].repeated! - attempts)).toBeLessThanOrEqual(1);
    // No kind of warning is written twice within the window.
    const kinds = info.beforeClose.filter((l) => l.level === 40).map((l) => `${l.namespace} ${l.msg}`);
    expect(new Set(kinds).size).toBe(kinds.length);
  }, 60_000);
});
