import type { Logger } from './logger';

/** One kind of entry's repeats within a window: written once, then counted. */
export interface Repeated<T> {
  /** The first entry of the kind (the one written, or the one that opened this window). */
  entry: T;
  /** How many more came within the window (not written). */
  repeated: number;
  /** How long the window ran, in ms. */
  overMs: number;
}

/** Kinds tracked at once; past that, a new kind is written every time rather than tracked. */
const MAX_KINDS = 100;

/**
 * Counts repeats of a log entry instead of writing them: the first entry of a kind (its key, e.g.
 * the message) is written; the next ones within `windowMs` are only counted, and when the window
 * ends its count is reported in one line (`report`), which opens the next window. So a
 * condition that repeats an entry several times a second (a broker down for an hour) writes it
 * once, then one line per window with the count, and once the repeats stop, a last count and
 * nothing more. Nothing is lost: every entry is written or counted in a reported line.
 *
 * Windows end on the next `admit` after `windowMs`, or on `flush` (a timer, and close).
 */
export class RepeatedEntries<T> {
  private readonly windows = new Map<string, { entry: T; since: number; repeated: number }>();

  constructor(
    private readonly report: (r: Repeated<T>) => void,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether to write this entry now: false when it is counted as a repeat of its kind. */
  admit(key: string, entry: T): boolean {
    this.flush();
    const w = this.windows.get(key);
    if (w !== undefined) {
      w.repeated++;
      return false;
    }
    if (this.windows.size < MAX_KINDS) this.windows.set(key, { entry, since: this.now(), repeated: 0 });
    return true;
  }

  /** Reports every window that has ended (all of them with `all`: the counts before a close). */
  flush(all = false): void {
    const now = this.now();
    for (const [key, w] of this.windows) {
      if (!all && now - w.since < this.windowMs) continue;
      if (w.repeated === 0 || all) this.windows.delete(key);
      if (w.repeated === 0) continue;
      this.report({ entry: w.entry, repeated: w.repeated, overMs: now - w.since });
      // The report stands for the kind's line: the next window counts from it.
      w.since = now;
      w.repeated = 0;
    }
  }
}

/** The window in which a repeated warning is written once (RepeatedWarnings). */
export const REPEATED_WARNING_WINDOW_MS = 30_000;

/**
 * Warnings that repeat for as long as a condition lasts (a task every 2 s failing while a
 * dependency is down, a client retrying a connection), written through RepeatedEntries: each kind
 * (by default the message and `err`) once per window, then one line with the count of its repeats
 * (the first one's fields and message, plus `repeated` and `overS`). At debug level (an operator
 * looking closely) every one is written. `flush` reports ended windows (a timer's job when the
 * repeats may just stop); `recovered` reports every count now (a task that succeeded again, a close).
 */
export class RepeatedWarnings {
  private readonly repeats: RepeatedEntries<{ fields: Record<string, unknown>; msg: string }> | undefined;

  constructor(
    private readonly log: Logger,
    windowMs = REPEATED_WARNING_WINDOW_MS,
  ) {
    if (log.isLevelEnabled('debug')) return;
    this.repeats = new RepeatedEntries(({ entry, repeated, overMs }) => {
      const overS = Math.round(overMs / 1000);
      log.warn({ ...entry.fields, repeated, overS }, `${entry.msg} (repeated ${repeated} times in ${overS} s)`);
    }, windowMs);
  }

  warn(fields: Record<string, unknown>, msg: string, key = `${msg}\0${String(fields.err ?? '')}`): void {
    if (this.repeats === undefined || this.repeats.admit(key, { fields, msg })) this.log.warn(fields, msg);
  }

  flush(): void {
    this.repeats?.flush();
  }

  recovered(): void {
    this.repeats?.flush(true);
  }
}

/**
 * Calls `task` every `ms` (a status publisher, a poll): a failure is warned as `failed` with its
 * `err` through RepeatedWarnings, so a task failing every 2 s for as long as a dependency is down
 * writes one line per error and window, and its next success reports how often it failed since.
 * The caller clears the timer.
 */
export function everyWarningRepeats(ms: number, task: () => Promise<unknown>, log: Logger, failed: string): NodeJS.Timeout {
  const warnings = new RepeatedWarnings(log);
  return setInterval(
    () =>
      void task().then(
        () => warnings.recovered(),
        (e: Error) => warnings.warn({ err: e.message }, failed),
      ),
    ms,
  );
}
