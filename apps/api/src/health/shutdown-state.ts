import { Injectable } from '@nestjs/common';

/** The readiness reason while the process drains (GET /health/ready `detail.reasons`). */
export const SHUTTING_DOWN = 'shutting down';

/**
 * Whether this API process is draining: set once when shutdown begins (see drainApiApp), never
 * cleared. Readiness answers 503 from then on and every response asks its client to drop the
 * connection, while requests are still served until the grace period ends.
 */
@Injectable()
export class ShutdownState {
  private sinceMs: number | null = null;
  private servedWhileDraining = 0;

  get draining(): boolean {
    return this.sinceMs !== null;
  }

  /** Starts draining; false when it already had. */
  begin(nowMs = Date.now()): boolean {
    if (this.sinceMs !== null) return false;
    this.sinceMs = nowMs;
    return true;
  }

  /** Counts a response finished while draining (reported when the drain ends). */
  noteResponse(): void {
    if (this.sinceMs !== null) this.servedWhileDraining++;
  }

  get responsesWhileDraining(): number {
    return this.servedWhileDraining;
  }
}
