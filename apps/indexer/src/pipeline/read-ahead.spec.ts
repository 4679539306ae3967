import { readAhead } from './read-ahead';

/** A source that records when each item starts being produced, relative to what the consumer has taken. */
function source(n: number, log: string[], failAt?: number) {
  return (async function* () {
    try {
      for (let i = 0; i < n; i++) {
        log.push(`produce ${i}`);
        await new Promise((r) => setTimeout(r, 1));
        if (i === failAt) throw new Error(`item ${i} failed`);
        yield i;
      }
    } finally {
      log.push('source closed');
    }
  })();
}

it('yields every item in order, producing the next one while the consumer works on the current one', async () => {
  const log: string[] = [];
  const seen: number[] = [];
  for await (const i of readAhead(source(3, log))) {
    log.push(`consume ${i}`);
    seen.push(i);
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(seen).toEqual([0, 1, 2]);
  // item 1 is under way before item 0 is consumed
  expect(log.indexOf('produce 1')).toBeLessThan(log.indexOf('consume 0'));
  expect(log).toContain('source closed');
});

it("a failure of the next item reaches the consumer only when it asks for that item, after the current one's work", async () => {
  const log: string[] = [];
  const seen: number[] = [];
  await expect(
    (async () => {
      for await (const i of readAhead(source(5, log, 1))) {
        await new Promise((r) => setTimeout(r, 5));
        seen.push(i);
      }
    })(),
  ).rejects.toThrow('item 1 failed');
  expect(seen).toEqual([0]);
});

it('a consumer that stops early closes the source and leaves no unhandled rejection', async () => {
  const log: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    for await (const i of readAhead(source(5, log, 1))) {
      if (i === 0) break; // item 1, already under way, fails later
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toContain('source closed');
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
