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

/** The items (buckets, records, days) a per-pool query may write that count as one unit of the gate. */
export const ITEMS_PER_UNIT = 300;

/**
 * A per-pool query's weight in HeavyQueryGate's units: one per ITEMS_PER_UNIT items it may write
 * (a day of 5m samples, a raw page of 200 or a year of daily volume is one; a raw page of 1,000 is
 * four; a century of daily volume takes every unit), at least one.
 */
export const unitsFor = (items: number): number => Math.max(1, Math.ceil(items / ITEMS_PER_UNIT));

/**
 * Bounds the per-pool queries (fees, midprice and volume history: database work and large JSON)
 * running at once, by weight: API_HEAVY_CONCURRENCY units run (a query weighs unitsFor the items it
 * may write, at most every unit, so any query runs once it is alone), up to API_HEAVY_QUEUE wait in
 * arrival order (none overtakes a heavier one ahead of it), the rest get 503 with Retry-After at
 * once. So ordinary queries run many at a time, while a few huge ones (a century of volume, raw
 * pages of 1,000) cannot fill the event loop and the database together. The pool list is served
 * from memory and never passes through here, and the database pool keeps connections for
 * readiness and pool lookups.
 */
@Injectable()
export class HeavyQueryGate {
  /** Queries running, and the units they hold. */
  private running = 0;
  private units = 0;
  /** Waiting queries in arrival order: the units each needs, and how to start it. */
  private readonly waiting: Array<{ units: number; start: () => void }> = [];
  /** The sockets of waiting requests: each one's 'close' listener and the requests it would end. */
  private readonly watched = new WeakMap<ClientSocket, { waiters: Set<() => void>; onClose: () => void }>();
  private readonly max: number;
  private readonly maxQueue: number;

  constructor(@Inject(API_CONFIG) config: Pick<ApiConfig, 'API_HEAVY_CONCURRENCY' | 'API_HEAVY_QUEUE'>, @Optional() metrics?: ApiMetrics) {
    this.max = config.API_HEAVY_CONCURRENCY;
    this.maxQueue = config.API_HEAVY_QUEUE;
    metrics?.gauge('hadron_api_heavy_queries_running', 'Per-pool queries running now (at most API_HEAVY_CONCURRENCY)', () => this.running);
    metrics?.gauge('hadron_api_heavy_units_running', 'Units the running per-pool queries hold (at most API_HEAVY_CONCURRENCY)', () => this.units);
    metrics?.gauge('hadron_api_heavy_queries_waiting', 'Per-pool queries waiting for a slot (at most API_HEAVY_QUEUE; beyond, 503)', () => this.waiting.length);
  }

  /** Queries running and waiting now (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `work` once `weight` units are free (see unitsFor; capped at every unit) and no query
   * waits ahead of it. `client` is the request's socket: if it closes while the request waits (the
   * client gave up, timed out, retried), the request leaves the queue at once and its work never
   * runs, so abandoned requests hold neither a place in the queue nor a unit.
   */
  async run<T>(work: () => Promise<T>, client?: ClientSocket, weight = 1): Promise<T> {
    const units = Math.min(Math.max(1, Math.ceil(weight)), this.max);
    if (this.waiting.length > 0 || this.units + units > this.max) {
      if (this.waiting.length >= this.maxQueue) throw new RetryLaterException(1);
      await this.wait(client, units);
    } else {
      this.take(units);
    }
    try {
      return await work();
    } finally {
      this.running--;
      this.units -= units;
      this.startWaiting();
    }
  }

  private take(units: number): void {
    this.running++;
    this.units += units;
  }

  /** Starts the queries at the head of the queue, in order, while their units are free. */
  private startWaiting(): void {
    while (this.waiting.length > 0 && this.units + this.waiting[0].units <= this.max) {
      const next = this.waiting.shift()!;
      this.take(next.units);
      next.start();
    }
  }

  private wait(client: ClientSocket | undefined, units: number): Promise<void> {
    if (client?.destroyed) return Promise.reject(new ClientGoneError());
    return new Promise<void>((resolve, reject) => {
      const turn = {
        units,
        start: () => {
          if (client) this.unwatch(client, gone);
          resolve();
        },
      };
      const gone = () => {
        const i = this.waiting.indexOf(turn);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(new ClientGoneError());
        // A heavy query that leaves the head of the queue may let lighter ones behind it start.
        if (i === 0) this.startWaiting();
      };
      this.waiting.push(turn);
      if (client) this.watch(client, gone);
    });
  }

  /**
   * One 'close' listener per socket, however many of its requests wait: a client pipelining
   * requests on one connection would otherwise add a listener each (and, past ten, Node's
   * "possible EventEmitter memory leak" warning).
   */
  private watch(client: ClientSocket, gone: () => void): void {
    let watched = this.watched.get(client);
    if (watched === undefined) {
      const waiters = new Set<() => void>();
      const onClose = () => {
        this.watched.delete(client);
        for (const w of waiters) w();
      };
      watched = { waiters, onClose };
      this.watched.set(client, watched);
      client.once('close', onClose);
    }
    watched.waiters.add(gone);
  }

  private unwatch(client: ClientSocket, gone: () => void): void {
    const watched = this.watched.get(client);
    if (watched === undefined) return;
    watched.waiters.delete(gone);
    if (watched.waiters.size > 0) return;
    this.watched.delete(client);
    client.off('close', watched.onClose);
  }
}

/** What HeavyQueryGate watches of a request's connection. */
export interface ClientSocket {
  readonly destroyed: boolean;
  once(event: 'close', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** The client closed its connection while its request waited: nothing is answered (logged at debug as a hang-up). */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
  readonly code = 'ECONNRESET';
  constructor() {
    super('the client closed the connection while its request waited for a slot');
  }
}
