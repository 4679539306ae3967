import { EventEmitter } from 'node:events';
import { ClientGoneError, HeavyQueryGate, RetryLaterException, unitsFor, type ClientSocket } from './heavy-query-gate';

/** A query held open until the test lets it finish, recording when it started. */
function held(started: string[], name: string): { work: () => Promise<string>; finish: () => void } {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

class FakeSocket extends EventEmitter implements ClientSocket {
  destroyed = false;
  close(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

describe('HeavyQueryGate: per-pool queries bounded by weight', () => {
  const gate = (units: number, queue = 16) => new HeavyQueryGate({ API_HEAVY_CONCURRENCY: units, API_HEAVY_QUEUE: queue });

  it('unitsFor: one unit per ITEMS_PER_UNIT items, at least one', () => {
    expect([0, 1, 288, 300, 301, 1000, 36_600].map(unitsFor)).toEqual([1, 1, 1, 1, 2, 4, 122]);
  });

  it('runs light queries up to the units at once; the next waits for a unit', async () => {
    const g = gate(3);
    const started: string[] = [];
    const qs = ['a', 'b', 'c', 'd'].map((n) => held(started, n));
    const results = qs.map((q) => g.run(q.work));
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(g.load).toEqual({ running: 3, waiting: 1 });
    qs[1].finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    qs.forEach((q) => q.finish());
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(g.load).toEqual({ running: 0, waiting: 0 });
  });

  it('a query heavier than every unit runs alone, and lighter ones behind it do not overtake it', async () => {
    const g = gate(4);
    const started: string[] = [];
    const light = held(started, 'light');
    const heavy = held(started, 'heavy');
    const after = held(started, 'after');
    const runs = [g.run(light.work, undefined, 1), g.run(heavy.work, undefined, 100), g.run(after.work, undefined, 1)];
    await settle();
    // Three units are free, but the heavy query is first in line: `after` waits behind it.
    expect(started).toEqual(['light']);
    light.finish();
    await settle();
    expect(started).toEqual(['light', 'heavy']);
    expect(g.load).toEqual({ running: 1, waiting: 1 });
    heavy.finish();
    await settle();
    expect(started).toEqual(['light', 'heavy', 'after']);
    after.finish();
    await Promise.all(runs);
  });

  it('a waiting heavy query whose client hangs up lets the lighter ones behind it start at once', async () => {
    const g = gate(2);
    const started: string[] = [];
    const first = held(started, 'first');
    const heavy = held(started, 'heavy');
    const light = held(started, 'light');
    const socket = new FakeSocket();
    const runs = [g.run(first.work, undefined, 1), g.run(heavy.work, socket, 2), g.run(light.work, undefined, 1)];
    await settle();
    expect(started).toEqual(['first']);
    socket.close();
    await expect(runs[1]).rejects.toBeInstanceOf(ClientGoneError);
    await settle();
    expect(started).toEqual(['first', 'light']); // one unit was free, and nobody heavier is ahead any more
    first.finish();
    light.finish();
    await Promise.all([runs[0], runs[2]]);
    expect(started).not.toContain('heavy');
  });

  it('past API_HEAVY_QUEUE waiting, 503 at once', async () => {
    const g = gate(1, 1);
    const started: string[] = [];
    const a = held(started, 'a');
    const b = held(started, 'b');
    const runs = [g.run(a.work), g.run(b.work)];
    await expect(g.run(async () => 'c')).rejects.toBeInstanceOf(RetryLaterException);
    a.finish();
    b.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b']);
  });
});
