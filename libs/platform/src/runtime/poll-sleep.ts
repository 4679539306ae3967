/**
 * The pause of a poll loop that news can end early: `wake()` (new records were appended) ends a
 * sleep that waits for news, or — arriving while the loop is busy — makes its next such sleep
 * return at once, until the loop `consume()`s it before it reads again. A sleep that must not be
 * cut short by news (a backoff) passes `wakeOnNews: false`. `stop()` ends any sleep and every
 * later one until `reset()`.
 */
export class PollSleep {
  private pending = false;
  private stopped = false;
  private current?: { done: () => void; wakeOnNews: boolean };

  wake(): void {
    this.pending = true;
    if (this.current?.wakeOnNews) this.current.done();
  }

  /** The loop is about to read: news so far is seen. */
  consume(): void {
    this.pending = false;
  }

  stop(): void {
    this.stopped = true;
    this.current?.done();
  }

  reset(): void {
    this.stopped = false;
  }

  sleep(ms: number, { wakeOnNews = true } = {}): Promise<void> {
    if ((wakeOnNews && this.pending) || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.current = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.current = { done, wakeOnNews };
    });
  }
}
