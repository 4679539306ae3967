import { logLevel } from 'kafkajs';
import { kafkaLogLevel } from './kafka-event-log';

/** What kafkajs says, and how loud it should be in our logs: error alerts must mean errors. */
describe('kafkaLogLevel', () => {
  it.each([
    [
      'a rebalance kafkajs heals by rejoining',
      logLevel.ERROR,
      '[Runner] The group is rebalancing, re-joining',
      { error: 'The group is rebalancing, so a rejoin is needed' },
      'info',
    ],
    ['a topic that exists already', logLevel.ERROR, 'Topic creation errors', { error: 'Topic with this name already exists' }, 'info'],
    [
      'a coordinator still loading',
      logLevel.ERROR,
      '[Connection] Response GroupCoordinator',
      { error: "The coordinator is loading and hence can't process requests" },
      'warn',
    ],
    [
      'a leader moving',
      logLevel.ERROR,
      '[Connection] Response Metadata',
      { error: 'There is no leader for this topic-partition as we are in the middle of a leadership election', type: 'LEADER_NOT_AVAILABLE' },
      'warn',
    ],
    [
      'a partition leader gone with its broker (the producer retries)',
      logLevel.ERROR,
      '[Connection] Response Produce(key: 0, version: 7)',
      { error: 'This server is not the leader for that topic-partition' },
      'warn',
    ],
    [
      'a leadership election under way',
      logLevel.ERROR,
      '[Connection] Response Metadata(key: 3, version: 6)',
      { error: 'There is no leader for this topic-partition as we are in the middle of a leadership election' },
      'warn',
    ],
    ['kafkajs restarting a consumer after the crash it logged', logLevel.ERROR, '[Consumer] Restarting the consumer in 7088ms', { retryCount: 5 }, 'info'],
    ['a broker unreachable for now', logLevel.ERROR, '[Connection] Connection error: connect ECONNREFUSED 127.0.0.1:9092', {}, 'warn'],
    ['a real failure', logLevel.ERROR, '[Consumer] Crash: KafkaJSNonRetriableError', { error: 'Invalid record' }, 'error'],
    ['a warning stays a warning', logLevel.WARN, 'something odd', {}, 'warn'],
    ['routine info goes to debug', logLevel.INFO, '[Consumer] Starting', {}, 'debug'],
    ['debug goes to trace', logLevel.DEBUG, 'bytes', {}, 'trace'],
  ])('%s', (_, level, message, extra, expected) => {
    expect(kafkaLogLevel(level, message, extra)).toBe(expected);
  });
});
