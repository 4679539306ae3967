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
  /** The sockets of waiting requests: each one's 'close' listener and the requests it would end. */
  private readonly watched = new WeakMap<ClientSocket, { waiters: Set<() => void>; onClose: () => void }>();
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

  /**
   * Runs `work` when a slot is free. `client` is the request's socket: if it closes while the
   * request waits (the client gave up, timed out, retried), the request leaves the queue at once
   * and its work never runs, so abandoned requests hold neither a place in the queue nor a slot.
   */
  async run<T>(work: () => Promise<T>, client?: ClientSocket): Promise<T> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxQueue) throw new RetryLaterException(1);
      await this.wait(client);
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

  private wait(client: ClientSocket | undefined): Promise<void> {
    if (client?.destroyed) return Promise.reject(new ClientGoneError());
    return new Promise<void>((resolve, reject) => {
      const gone = () => {
        const i = this.waiting.indexOf(turn);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(new ClientGoneError());
      };
      const turn = () => {
        if (client) this.unwatch(client, gone);
        resolve();
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
