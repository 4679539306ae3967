import { PollSleep } from './poll-sleep';

describe('PollSleep', () => {
  const settled = async (p: Promise<void>) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30))]);

  it('news ends a sleep that waits for it, and a sleep after unconsumed news returns at once', async () => {
    const s = new PollSleep();
    const first = s.sleep(10_000);
    s.wake();
    expect(await settled(first)).toBe(true);
    expect(await settled(s.sleep(10_000))).toBe(true); // not consumed yet
    s.consume();
    const third = s.sleep(10_000);
    expect(await settled(third)).toBe(false);
    s.wake();
    expect(await settled(third)).toBe(true);
  });

  it('a backoff is not cut short by news; stop ends it and every later sleep until reset', async () => {
    const s = new PollSleep();
    const backoff = s.sleep(10_000, { wakeOnNews: false });
    s.wake();
    expect(await settled(backoff)).toBe(false);
    s.stop();
    expect(await settled(backoff)).toBe(true);
    expect(await settled(s.sleep(10_000, { wakeOnNews: false }))).toBe(true);
    s.reset();
    s.consume();
    expect(await settled(s.sleep(10_000))).toBe(false);
    s.stop();
  });
});
