import { RpcFailure, rpcErrorFailure, type RpcFailureKind } from './retry-policy';
import { Semaphore, TokenBucket } from './rate-limiter';

/**
 * JSON-RPC 2.0 over HTTP POST to one Solana endpoint: single calls and batches (array bodies), with a
 * per-request timeout, the endpoint's token bucket and a cap on requests in flight. One `send` is
 * one HTTP request and one attempt: retries are the caller's (solana-rpc.ts), never hidden here.
 *
 * Why not web3.js's Connection: its getTransaction(s) turn the wire JSON into PublicKey/Message
 * objects the pure decoder would have to turn back, its batch call is private, and its own 429
 * retry has to be disabled anyway (PLATFORM-NOTES). The wire JSON is exactly what we decode.
 */

export interface JsonRpcCall {
  method: string;
  params: readonly unknown[];
}

export type CallOutcome = { ok: true; result: unknown } | { ok: false; failure: RpcFailure };

/** What the transport reports, for metrics (calls and errors by method). */
export interface RpcObserver {
  request(method: string, calls: number, seconds: number): void;
  failure(method: string, kind: RpcFailureKind): void;
  retry(method: string, kind: RpcFailureKind): void;
}

export const noRpcObserver: RpcObserver = { request: () => undefined, failure: () => undefined, retry: () => undefined };

export interface TransportOptions {
  url: string;
  timeoutMs: number;
  /** JSON-RPC calls per second (token bucket). */
  rps: number;
  /** HTTP requests in flight. */
  concurrency: number;
  observer?: RpcObserver;
}

let nextId = 1;

export class JsonRpcTransport {
  private readonly bucket: TokenBucket;
  private readonly inFlight: Semaphore;
  private readonly observer: RpcObserver;

  constructor(private readonly options: TransportOptions) {
    this.bucket = new TokenBucket(options.rps);
    this.inFlight = new Semaphore(options.concurrency);
    this.observer = options.observer ?? noRpcObserver;
  }

  get url(): string {
    return this.options.url;
  }

  /**
   * Sends `calls` as one HTTP request (a batch when more than one). Resolves with one outcome per
   * call, in order; rejects with an RpcFailure when the request as a whole failed.
   */
  async send(calls: readonly JsonRpcCall[], stop?: AbortSignal): Promise<CallOutcome[]> {
    if (calls.length === 0) return [];
    const method = calls[0].method;
    await this.bucket.acquire(calls.length);
    return this.inFlight.run(async () => {
      const started = performance.now();
      try {
        return await this.post(calls, stop);
      } catch (e) {
        const failure = e instanceof RpcFailure ? e : classifyThrown(e, this.options.timeoutMs);
        this.observer.failure(method, failure.kind);
        throw failure;
      } finally {
        this.observer.request(method, calls.length, (performance.now() - started) / 1000);
      }
    });
  }

  private async post(calls: readonly JsonRpcCall[], stop?: AbortSignal): Promise<CallOutcome[]> {
    const ids = calls.map(() => nextId++);
    const body = calls.length === 1 ? JSON.stringify(envelope(calls[0], ids[0])) : JSON.stringify(calls.map((c, i) => envelope(c, ids[i])));
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = stop ? AbortSignal.any([timeout, stop]) : timeout;
    const res = await fetch(this.options.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });
    const text = await res.text(); // under the same timeout signal
    if (res.status === 429) throw new RpcFailure('rate_limited', `HTTP 429 from ${this.options.url}`, true, { status: 429, retryAfterMs: retryAfterMs(res.headers.get('retry-after')) });
    if (!res.ok) throw new RpcFailure('server_error', `HTTP ${res.status} from ${this.options.url}: ${text.slice(0, 120)}`, true, { status: res.status });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RpcFailure('malformed', `${calls[0].method}: response is not JSON (${text.length} bytes)`, true);
    }
    const replies = Array.isArray(parsed) ? parsed : [parsed];
    const byId = new Map<unknown, Record<string, unknown>>();
    for (const r of replies) if (r && typeof r === 'object') byId.set((r as { id?: unknown }).id, r as Record<string, unknown>);
    // A whole-request error (e.g. a batch refused as a whole) answers with id null.
    const whole = byId.get(null);
    return calls.map((call, i): CallOutcome => {
      const reply = byId.get(ids[i]) ?? whole;
      if (!reply) return { ok: false, failure: new RpcFailure('malformed', `${call.method}: no reply for request ${ids[i]}`, true) };
      if (reply.error !== undefined && reply.error !== null) {
        const failure = rpcErrorFailure(call.method, reply.error as { code?: unknown; message?: unknown });
        this.observer.failure(call.method, failure.kind);
        return { ok: false, failure };
      }
      if (!('result' in reply)) return { ok: false, failure: new RpcFailure('malformed', `${call.method}: reply without result`, true) };
      return { ok: true, result: reply.result };
    });
  }
}

function envelope(call: JsonRpcCall, id: number): unknown {
  return { jsonrpc: '2.0', id, method: call.method, params: call.params };
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function classifyThrown(e: unknown, timeoutMs: number): RpcFailure {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return new RpcFailure('timeout', `no answer within ${timeoutMs} ms`, true);
  const cause = err?.cause?.code ?? err?.cause?.message ?? '';
  return new RpcFailure('network', `request failed: ${err?.message ?? String(e)}${cause ? ` (${cause})` : ''}`, true);
}
