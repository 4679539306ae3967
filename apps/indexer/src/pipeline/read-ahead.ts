/**
 * `source`'s items in order, the next one already being produced while the consumer works on the
 * current one (one ahead): the backfill fetches chunk k+1 while chunk k is derived, appended and
 * committed. What the consumer sees is unchanged — the same items, in the same order, and a
 * failure of item k+1 only when it asks for it, after k is done. A consumer that stops early
 * leaves at most one item produced in vain; its outcome is dropped and the source is closed.
 * `onWait`: the seconds the consumer waited for each item.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, onWait: (seconds: number) => void = () => undefined): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  // Each item in flight is marked handled at once: it may fail while the consumer is still busy with the previous one
  // (an unhandled rejection then would end the process); the consumer still gets the failure when it awaits the item.
  const ahead = () => {
    const p = it.next();
    p.catch(() => undefined);
    return p;
  };
  let next = ahead();
  let finished = false;
  try {
    for (;;) {
      const asked = performance.now();
      const r = await next;
      onWait((performance.now() - asked) / 1000); // how long the consumer waited: the part of producing not hidden behind its work
      if (r.done) {
        finished = true;
        return;
      }
      next = ahead();
      yield r.value;
    }
  } finally {
    if (!finished) {
      // Stopped early (a break, a throw, or the source's own failure): nobody waits for the item in flight.
      void it.return?.(undefined)?.catch(() => undefined);
    }
  }
}
