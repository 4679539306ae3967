/** Lines are gathered into chunks of up to this many bytes (or one line, if longer), sent to the COPY one by one. */
const CHUNK_BYTES = 256 * 1024;
/** Chunks queued beyond this many bytes make `write` return a promise (back-pressure) until the COPY has taken them below half. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;

/**
 * COPY text computed on one side (a fold over another connection's COPY TO, see copyTo) and sent
 * on the other by copyFrom, which iterates it: lines are gathered into chunks, and the queue of
 * chunks is bounded, so a table larger than memory passes through. `fail` ends both sides: the
 * COPY is aborted, and a later `write` throws.
 */
export class CopyPipe implements AsyncIterable<Buffer> {
  /** The chunk being filled: lines are written into it as UTF-8 as they come. */
  private pending = Buffer.allocUnsafe(0);
  private at = 0;
  private readonly chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private wakeReader: (() => void) | undefined;
  private drained: { promise: Promise<void>; resolve: () => void } | undefined;

  /** Appends one COPY line (with its newline); a promise when the queue is full: wait for it before writing on. */
  write(line: string): Promise<void> | undefined {
    if (this.failure) throw this.failure.error;
    // UTF-8 takes at most 3 bytes per UTF-16 unit, and Buffer#write stops short rather than
    // overflow: a line that may not fit in what is left of the chunk starts a new one.
    if (this.at + line.length * 3 > this.pending.length) {
      this.flush();
      this.pending = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length * 3));
    }
    this.at += this.pending.write(line, this.at);
    if (this.queued <= HIGH_WATER_BYTES) return undefined;
    if (!this.drained) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.drained = { promise, resolve };
    }
    return this.drained.promise;
  }

  /** No more lines: the COPY ends once it has sent what is queued. */
  end(): void {
    this.flush();
    this.ended = true;
    this.wake();
  }

  /** Ends both sides with `error` (the reader's COPY is aborted; `write` throws it). */
  fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    this.wake();
    this.release();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      if (this.failure) throw this.failure.error;
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        this.queued -= chunk.length;
        if (this.queued <= HIGH_WATER_BYTES / 2) this.release();
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((r) => (this.wakeReader = r));
    }
  }

  private flush(): void {
    if (this.at === 0) return;
    const chunk = this.pending.subarray(0, this.at);
    this.pending = this.pending.subarray(this.at);
    this.at = 0;
    this.chunks.push(chunk);
    this.queued += chunk.length;
    this.wake();
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }

  private release(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.resolve();
  }
}
