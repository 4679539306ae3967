import { HttpException, Inject, Injectable, Optional } from '@nestjs/common';
import type { ApiConfig } from '../api.config';
import { ApiMetrics } from '../metrics/api-metrics';
import { API_CONFIG } from './tokens';

/** A 503 that tells the client when to come back (the exception filter sets `Retry-After`). */
export class RetryLaterException extends HttpException {
  constructor(readonly retryAfterSeconds: number) {
    super('Service Unavailable', 503);
  }
}

/**
 * Bounds how many per-pool queries (fees, midprice and volume history: database work and large
 * JSON) run at once: API_HEAVY_CONCURRENCY run, up to API_HEAVY_QUEUE wait in arrival order, the
 * rest get 503 with Retry-After at once. The pool list is served from memory and never passes
 * through here, so a client hammering history endpoints cannot make it queue; and the database
 * pool keeps connections for readiness and pool lookups.
 */
@Injectable()
export class HeavyQueryGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly max: number;
  private readonly maxQueue: number;

  constructor(@Inject(API_CONFIG) config: Pick<ApiConfig, 'API_HEAVY_CONCURRENCY' | 'API_HEAVY_QUEUE'>, @Optional() metrics?: ApiMetrics) {
    this.max = config.API_HEAVY_CONCURRENCY;
    this.maxQueue = config.API_HEAVY_QUEUE;
    metrics?.gauge('hadron_api_heavy_queries_running', 'Per-pool queries running now (at most API_HEAVY_CONCURRENCY)', () => this.running);
    metrics?.gauge('hadron_api_heavy_queries_waiting', 'Per-pool queries waiting for a slot (at most API_HEAVY_QUEUE; beyond, 503)', () => this.waiting.length);
  }

  /** Queries running and waiting now (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxQueue) throw new RetryLaterException(1);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next in line (running stays the same), or is freed.
      if (next) next();
      else this.running--;
    }
  }
}
