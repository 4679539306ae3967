import type { ConsumeOptions, EventLogConsumer, OwnedPartitions } from '@hadron/platform/event-log/event-log.port';
import { createLogger } from '@hadron/platform/logging/logger';
import { noMetrics } from '../metrics/projector-metrics';
import { midpriceProjection } from '../projections/midprice/midprice.projection';
import { BuildWorker } from './build-worker';

/** A log consumer already at the tail: lag 0, no batches. */
class CaughtUpConsumer implements EventLogConsumer {
  stopped = false;
  options?: ConsumeOptions;
  async start(options: ConsumeOptions): Promise<void> {
    this.options = options;
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
  async lag(): Promise<bigint> {
    return 0n;
  }
  async owned(): Promise<OwnedPartitions> {
    return { streams: ['event_log'], partitions: [] };
  }
}

const build = { projection: 'midprice', version: 2, buildId: 'b1', schemaName: 'proj_midprice_v2_b1', consumerGroup: 'g', status: 'building' as const };

/** A worker of a building midprice build on `consumer`, batches of 10. */
const workerOn = (consumer: EventLogConsumer, onCaughtUp: () => Promise<void>) =>
  new BuildWorker({ def: midpriceProjection, build, consumer, maxBatchSize: 10, metrics: noMetrics, log: createLogger('test', 'silent'), onCaughtUp });

describe('BuildWorker', () => {
  it('stops while its caught-up callback is still waiting (the runner switch queued behind whoever stops it)', async () => {
    const consumer = new CaughtUpConsumer();
    let calledBack!: () => void;
    const called = new Promise<void>((r) => (calledBack = r));
    const never = new Promise<void>(() => undefined);
    const worker = workerOn(consumer, () => {
      calledBack();
      return never; // the runner's queue is busy with the caller of stop()
    });
    await worker.start();
    await called;
    let timer!: NodeJS.Timeout;
    const outcome = await Promise.race([worker.stop().then(() => 'stopped'), new Promise((r) => (timer = setTimeout(() => r('deadlocked'), 3000)))]);
    clearTimeout(timer);
    expect(outcome).toBe('stopped');
    expect(consumer.stopped).toBe(true);
  });

  it('asks whether it caught up as soon as the consumer reports the log tail, not a timer later', async () => {
    // The clock stands still: the worker's fallback (a check after a second without commits) never fires.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const consumer = new CaughtUpConsumer();
    const caughtUp = jest.fn(async () => undefined);
    const worker = workerOn(consumer, caughtUp);
    try {
      await worker.start();
      await new Promise((r) => setImmediate(r));
      expect(caughtUp).not.toHaveBeenCalled();
      consumer.options!.onTail!();
      for (let i = 0; i < 5 && caughtUp.mock.calls.length === 0; i++) await new Promise((r) => setImmediate(r));
      expect(caughtUp).toHaveBeenCalledTimes(1);
    } finally {
      await worker.stop();
      jest.useRealTimers();
    }
  });
});
