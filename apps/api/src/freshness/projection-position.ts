import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@hadron/platform/logging/logger';
import { ReadDb } from '../database/read-db';
import { API_LOGGER } from '../http/tokens';

/**
 * Every served build and how far it has applied the log, in one string. `read.projection_status`
 * moves in the same transaction as the rows a projection writes (and a build switch changes the
 * build id), so equal strings mean equal projected data.
 */
const POSITION_SQL = `SELECT coalesce(string_agg(projection || ':' || build_id || ':' || position, ',' ORDER BY projection), '') AS v
  FROM read.projection_status`;

/** A miss refreshes the last known position in the background when it is older than this. */
const REFRESH_AFTER_MS = 100;

/**
 * Where the served projections are (read.projection_status), for the response cache. `fresh()`
 * answers with a reading that started after the call, so a cached answer it validates is never
 * older than what a query made at that moment would read; readings are coalesced (one at a time,
 * and every caller waiting for the next one shares it), so many requests cost one small query.
 * null when it cannot be read (no read schema yet, database down): then nothing is cached.
 */
@Injectable()
export class ProjectionPosition {
  private running: Promise<string | null> | null = null;
  private queued: Promise<string | null> | null = null;
  private last: string | null = null;
  private lastAtMs = 0;

  constructor(
    private readonly db: ReadDb,
    @Inject(API_LOGGER) private readonly log: Logger,
  ) {}

  /** A position read by a query that started after this call. */
  fresh(): Promise<string | null> {
    if (this.running === null) return this.launch();
    // The reading under way may have started before this call: wait for the next one.
    return (this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.launch();
    }));
  }

  /**
   * The last position read (any age; null if none): one read before a query starts is a safe
   * version for what that query reads, since positions only move forward. Starts a reading in the
   * background when it is older than REFRESH_AFTER_MS.
   */
  latest(): string | null {
    if (this.running === null && Date.now() - this.lastAtMs > REFRESH_AFTER_MS) void this.launch();
    return this.last;
  }

  private launch(): Promise<string | null> {
    const reading = this.db.query<{ v: string }>('api-projection-position', POSITION_SQL).then(
      (rows) => rows[0]?.v ?? null,
      (e: unknown) => {
        this.log.debug({ err: (e as Error).message }, 'projection position not read; not caching');
        return null;
      },
    );
    this.running = reading;
    return reading.then((v) => {
      if (this.running === reading) this.running = null;
      this.last = v;
      this.lastAtMs = Date.now();
      return v;
    });
  }
}
