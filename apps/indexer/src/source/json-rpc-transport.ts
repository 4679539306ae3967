import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { quoteUpstream, redactUrl, urlSecrets } from '@hadron/platform';
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
 *
 * Why node:http(s) with a keep-alive agent rather than fetch: a getTransaction batch answer is
 * ~2 KB per transaction (~0.2 MB per batch of 100), and fetch's WHATWG streams cost about twice
 * the CPU per answer (measured against the simulator: 3.1 vs 1.7 ms per batch). On a backfill the
 * indexer's one thread is the bottleneck (bench:indexer), so the leaner client is the faster indexer.
 *
 * The endpoint URL may carry a credential (`?api-key=`, a path token, `user:password@`): every
 * message this file builds names it by `redactUrl`, and quotes of the upstream's body are cut,
 * stripped of control characters and scrubbed of the URL's secrets, so a thrown error is safe to
 * log or publish anywhere. Userinfo is sent as `Authorization: Basic` and taken out of the URL
 * requested (so no client error can quote it).
 *
 * Bodies are read as they arrive and the connection is dropped past `maxResponseBytes` (also when
 * Content-Length announces more): a runaway or hostile answer is dropped at the cap instead of
 * filling memory.
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
  /** Thread time spent on answers: JSON.parse of a body, or the shape checks of its results (solana-rpc.ts). */
  stage?(stage: 'rpc_json_parse' | 'rpc_check', seconds: number): void;
}

export const noRpcObserver: RpcObserver = { request: () => undefined, failure: () => undefined, retry: () => undefined };

/**
 * Default RPC_MAX_RESPONSE_BYTES: 32 MiB. The biggest answers we ask for legitimately: a batch of
 * RPC_TX_BATCH (50) getTransaction results in `json` encoding — a transaction is ≤ 1232 bytes raw,
 * but with its meta (log messages are capped at 10 KB by the validator, inner instructions, token
 * balances) a heavy one is ~10–100 KB of JSON, so ≤ 5 MB; a getBlock batch of 10 blocks' signatures
 * (~3000 × 90 bytes each) ≈ 3 MB; getProgramAccounts of every pool config and getMultipleAccounts
 * of 100 mints (base64) ≈ 1–2 MB. 32 MiB is > 5× the largest, and a batch over it is split anyway.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Bytes of a non-2xx body read to quote from (the rest is dropped, the connection with it). */
const ERROR_BODY_BYTES = 4096;

/** An idle keep-alive connection is closed after this long: before the server's own idle timeout (5 s is common), so a request rarely meets a connection the server just closed. */
const IDLE_SOCKET_MS = 4000;

export interface TransportOptions {
  url: string;
  timeoutMs: number;
  /** Largest response body accepted (RPC_MAX_RESPONSE_BYTES); more aborts the request. */
  maxResponseBytes?: number;
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
  /** The endpoint fetched: the configured URL without its userinfo. */
  private readonly endpoint: string;
  private readonly headers: Record<string, string> = { 'content-type': 'application/json' };
  /** Values of the configured URL that are credentials: masked in any upstream text we quote. */
  private readonly secrets: readonly string[];
  private readonly maxResponseBytes: number;
  /** Keep-alive connections to the endpoint (idle ones closed after IDLE_SOCKET_MS, before a server's usual 5 s). */
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;
  /** The endpoint as messages and logs name it (credentials masked). */
  readonly displayUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.bucket = new TokenBucket(options.rps);
    this.inFlight = new Semaphore(options.concurrency);
    this.observer = options.observer ?? noRpcObserver;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.displayUrl = redactUrl(options.url);
    this.secrets = urlSecrets(options.url);
    this.endpoint = options.url;
    const parsed = URL.canParse(options.url) ? new URL(options.url) : null;
    if (parsed && (parsed.username || parsed.password)) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
      parsed.username = '';
      parsed.password = '';
      this.endpoint = parsed.toString();
    }
    const https = parsed?.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) : new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
    this.request = https ? httpsRequest : httpRequest;
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
        const failure = e instanceof RpcFailure ? e : classifyThrown(e, this.options.timeoutMs, this.secrets);
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
    const signal = AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), ...(stop ? [stop] : [])]);
    const res = await this.postOnce(body, signal);
    // The bodies are read under the same signal (timeout, close()).
    if (res.statusCode === 429) {
      await readUpTo(res, ERROR_BODY_BYTES, signal); // drained (a short one), so the connection is reused
      throw new RpcFailure('rate_limited', `HTTP 429 from ${this.displayUrl}`, true, {
        status: 429,
        retryAfterMs: retryAfterMs(header(res, 'retry-after')),
      });
    }
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const quote = quoteUpstream((await readUpTo(res, ERROR_BODY_BYTES, signal)).text, { secrets: this.secrets });
      throw new RpcFailure('server_error', `HTTP ${status} from ${this.displayUrl}${quote ? `: ${quote}` : ''}`, true, { status });
    }
    const { text, over } = await readBody(res, this.maxResponseBytes, signal);
    if (over !== null) throw this.tooLarge(calls, over);
    let parsed: unknown;
    const parseStarted = performance.now();
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RpcFailure('malformed', `${calls[0].method}: response is not JSON (${text.length} bytes)`, true);
    } finally {
      this.observer.stage?.('rpc_json_parse', (performance.now() - parseStarted) / 1000);
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

  /** One POST of `body`: resolves with the response once its head arrived; `signal` aborts it (and its body) at any point. */
  private postOnce(body: string, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = this.request(
        this.endpoint,
        { method: 'POST', agent: this.agent, signal, headers: { ...this.headers, 'content-length': Buffer.byteLength(body) } },
        resolve,
      );
      req.once('error', reject);
      req.end(body);
    });
  }

  /** An answer over the cap: 'malformed' (retried, the caller splits a batch), naming the cap and its variable. */
  private tooLarge(calls: readonly JsonRpcCall[], over: { declared: number | null }): RpcFailure {
    const cap = this.maxResponseBytes;
    const what = over.declared !== null ? `announced ${over.declared} bytes` : `passed ${cap} bytes`;
    const batch =
      calls.length > 1
        ? ` for a batch of ${calls.length} calls`
        : ' for a single call (raise RPC_MAX_RESPONSE_BYTES if the endpoint legitimately answers this much)';
    return new RpcFailure(
      'malformed',
      `${calls[0].method}: response over the RPC_MAX_RESPONSE_BYTES cap of ${cap} bytes (${what}; request aborted)${batch}`,
      true,
      { tooLarge: true },
    );
  }
}

/**
 * A response body read as it arrives, up to `limit` bytes. More (announced by Content-Length or
 * counted) stops the read and drops the connection: `over` says so and `text` is what was read.
 */
async function readBody(res: IncomingMessage, limit: number, signal: AbortSignal): Promise<{ text: string; over: { declared: number | null } | null }> {
  const declared = Number(header(res, 'content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    res.destroy();
    return { text: '', over: { declared } };
  }
  return readUpTo(res, limit, signal);
}

/**
 * The first `limit` bytes of a body, whatever its length: a longer one is cut there and its
 * connection dropped (`over`). Rejects when the signal aborts (AbortError, TimeoutError) or the
 * connection closes before the body's end.
 */
function readUpTo(res: IncomingMessage, limit: number, signal: AbortSignal): Promise<{ text: string; over: { declared: number | null } | null }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      f();
    };
    const onAbort = () => settle(() => (res.destroy(), reject(signal.reason ?? new DOMException('aborted', 'AbortError'))));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (total + chunk.byteLength > limit) {
        chunks.push(chunk.subarray(0, limit - total));
        total = limit;
        res.destroy();
        return settle(() => resolve({ text: Buffer.concat(chunks, total).toString('utf8'), over: { declared: null } }));
      }
      chunks.push(chunk);
      total += chunk.byteLength;
    });
    res.once('end', () => settle(() => resolve({ text: Buffer.concat(chunks, total).toString('utf8'), over: null })));
    res.once('error', (e) => settle(() => reject(signal.aborted ? (signal.reason ?? e) : e)));
    res.once('close', () =>
      settle(() =>
        reject(signal.aborted ? signal.reason : Object.assign(new Error('response cut off: connection closed before its end'), { name: 'ResponseCut' })),
      ),
    );
  });
}

function header(res: IncomingMessage, name: string): string | null {
  const v = res.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v[0] : v;
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

/** A thrown request error as an RpcFailure; its text may quote the request (a URL), so it is scrubbed like a body. */
function classifyThrown(e: unknown, timeoutMs: number, secrets: readonly string[]): RpcFailure {
  const err = e as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return new RpcFailure('timeout', `no answer within ${timeoutMs} ms`, true);
  const code = err?.code && !err.message?.includes(err.code) ? err.code : '';
  const cause = err?.cause?.code ?? err?.cause?.message ?? code;
  return new RpcFailure(
    'network',
    `request failed: ${quoteUpstream(`${err?.message ?? String(e)}${cause ? ` (${cause})` : ''}`, { secrets, max: 300 })}`,
    true,
  );
}
