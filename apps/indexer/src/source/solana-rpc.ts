import { tryDecodeBase58 } from '@hadron/domain';
import { servedTransactionProblem, type RpcTransactionResult } from '../decode';
import { JsonRpcTransport, type JsonRpcCall, type RpcObserver } from './json-rpc-transport';
import { RetryPolicy, RpcFailure, type RetryPolicyOptions } from './retry-policy';

/**
 * The Solana RPC methods the indexer uses, with OUR retry policy on every call (RetryPolicy) and
 * JSON-RPC batching for the bulk ones (transactions, blocks, accounts). Results are the wire JSON
 * (checked for shape: a malformed answer is retried like a 5xx).
 */

/**
 * `confirmed`: optimistically confirmed by a supermajority — in practice never rolled back, and
 * ~13 s (32 slots) fresher than `finalized`, which the 1 s swap-to-API target needs. The residual
 * risk (a confirmed slot later abandoned) is accepted: such a block's facts would stay in the log.
 */
export type Commitment = 'confirmed' | 'finalized';

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime: number | null;
}

export interface AccountData {
  owner: string;
  lamports: number;
  data: Uint8Array;
}

export type ItemResult<T> = { ok: true; value: T } | { ok: false; failure: RpcFailure; attempts: number };

/** The wire JSON of getTransaction plus the message header, which tells writable accounts apart. */
export type WireTransaction = RpcTransactionResult & {
  transaction: RpcTransactionResult['transaction'] & {
    message: RpcTransactionResult['transaction']['message'] & {
      header?: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
    };
  };
};

export interface SolanaRpcOptions {
  url: string;
  commitment: Commitment;
  timeoutMs: number;
  rps: number;
  concurrency: number;
  retry: RetryPolicyOptions;
  /** getTransaction calls per HTTP request. */
  txBatchSize: number;
  /** RPC_MAX_RESPONSE_BYTES: a longer answer is refused (a batch is split and sent again). */
  maxResponseBytes?: number;
  observer?: RpcObserver;
}

const MAX_MULTIPLE_ACCOUNTS = 100;
const BLOCK_BATCH = 10;

/** Thrown by every call once `close()` was called: the caller is stopping, nothing failed. */
export class RpcClosed extends Error {
  override readonly name = 'RpcClosed';
  constructor() {
    super('RPC client closed: stopping');
  }
}

export class SolanaRpc {
  private readonly transport: JsonRpcTransport;
  private readonly policy: RetryPolicy;
  private readonly observer?: RpcObserver;
  private readonly closing = new AbortController();
  private readonly closed = new Promise<void>((resolve) => this.closing.signal.addEventListener('abort', () => resolve(), { once: true }));
  /** Since when no call has had a good answer (Date.now() ms), or null while answers are good. */
  private failingSince: number | null = null;

  constructor(
    private readonly options: SolanaRpcOptions,
    // unref: a backoff abandoned by close() must not keep the process alive
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms).unref()),
  ) {
    this.transport = new JsonRpcTransport(options);
    this.policy = new RetryPolicy(options.retry);
    this.observer = options.observer;
  }

  /**
   * Abandons in-flight requests and backoff waits at once (a drain must not wait out minutes of
   * retries against a dead endpoint): every call then rejects with RpcClosed — never with a
   * per-item failure, so nothing is mistaken for an unserved transaction or an unknown value.
   */
  close(): void {
    this.closing.abort();
  }

  /**
   * Seconds since the RPC last gave a good answer after failing (HTTP errors, timeouts, malformed or
   * wrongly shaped answers, rate limits); 0 while answers are good. A transaction the node does not
   * serve yet ('missing') is not an RPC failure: the gap machinery judges those.
   */
  failingSeconds(now = Date.now()): number {
    return this.failingSince === null ? 0 : Math.max(0, (now - this.failingSince) / 1000);
  }

  get commitment(): Commitment {
    return this.options.commitment;
  }

  /** `attempts`: fewer than the policy's, e.g. 1 for a periodic read whose next tick is its retry. */
  async getSlot(opts: { attempts?: number } = {}): Promise<number> {
    return this.call('getSlot', [{ commitment: this.options.commitment }], (r) => asInt(r, 'getSlot'), opts.attempts);
  }

  /**
   * Newest first (getSignaturesForAddress order), at most `limit` (≤ 1000). `minContextSlot`: the
   * answering node must have reached that slot, else -32016 (retried) — a node behind the one
   * that gave the cycle's target would silently list less than everything up to it.
   */
  async getSignaturesForAddress(address: string, opts: { before?: string; until?: string; limit: number; minContextSlot?: number }): Promise<SignatureInfo[]> {
    const config: Record<string, unknown> = { commitment: this.options.commitment, limit: opts.limit };
    if (opts.before) config.before = opts.before;
    if (opts.until) config.until = opts.until;
    if (opts.minContextSlot !== undefined) config.minContextSlot = opts.minContextSlot;
    return this.call('getSignaturesForAddress', [address, config], (r) => {
      if (!Array.isArray(r)) throw malformed('getSignaturesForAddress', 'not an array');
      return r.map((s: Record<string, unknown>) => {
        if (typeof s?.signature !== 'string' || typeof s.slot !== 'number') throw malformed('getSignaturesForAddress', 'entry without signature/slot');
        return { signature: s.signature, slot: s.slot, err: s.err ?? null, blockTime: typeof s.blockTime === 'number' ? s.blockTime : null };
      });
    });
  }

  /** Config-like accounts of `program` with exactly `dataSize` bytes, and the slot they were read at. */
  async getProgramAccounts(
    program: string,
    dataSize: number,
    minContextSlot?: number,
  ): Promise<{ slot: number; accounts: { pubkey: string; account: AccountData }[] }> {
    const config: Record<string, unknown> = { commitment: this.options.commitment, encoding: 'base64', withContext: true, filters: [{ dataSize }] };
    if (minContextSlot !== undefined) config.minContextSlot = minContextSlot;
    const params = [program, config];
    return this.call('getProgramAccounts', params, (r) => {
      const ctx = r as { context?: { slot?: unknown }; value?: unknown };
      if (!ctx || typeof ctx.context?.slot !== 'number' || !Array.isArray(ctx.value)) throw malformed('getProgramAccounts', 'expected {context, value[]}');
      return {
        slot: ctx.context.slot,
        accounts: ctx.value.map((a: { pubkey?: unknown; account?: unknown }) => ({
          pubkey: asString(a?.pubkey, 'getProgramAccounts'),
          account: asAccount(a?.account, 'getProgramAccounts')!,
        })),
      };
    });
  }

  /**
   * Accounts (null = does not exist), read in one JSON-RPC batch of ≤ 100 per call. `slots` are the
   * context slots of the calls (equal in practice: one HTTP request).
   */
  async getMultipleAccounts(addresses: readonly string[], minContextSlot?: number): Promise<{ slots: number[]; accounts: Map<string, AccountData | null> }> {
    const chunks: string[][] = [];
    for (let i = 0; i < addresses.length; i += MAX_MULTIPLE_ACCOUNTS) chunks.push(addresses.slice(i, i + MAX_MULTIPLE_ACCOUNTS));
    const config: Record<string, unknown> = { commitment: this.options.commitment, encoding: 'base64' };
    if (minContextSlot !== undefined) config.minContextSlot = minContextSlot;
    const results = await this.callMany(
      'getMultipleAccounts',
      chunks.map((c) => [c, config]),
      (r, i) => {
        const ctx = r as { context?: { slot?: unknown }; value?: unknown };
        if (!ctx || typeof ctx.context?.slot !== 'number' || !Array.isArray(ctx.value) || ctx.value.length !== chunks[i].length)
          throw malformed('getMultipleAccounts', 'expected {context, value[]} of the right length');
        return { slot: ctx.context.slot, values: ctx.value.map((v) => asAccount(v, 'getMultipleAccounts')) };
      },
      chunks.length,
    );
    const accounts = new Map<string, AccountData | null>();
    const slots: number[] = [];
    results.forEach((res, i) => {
      if (!res.ok) throw res.failure;
      slots.push(res.value.slot);
      chunks[i].forEach((address, j) => accounts.set(address, res.value.values[j]));
    });
    return { slots, accounts };
  }

  /**
   * Transactions by signature, batched; each item is retried on its own (a `null` — a signature
   * the node listed but cannot serve yet — counts as a retryable failure). Items still failing
   * after the policy's attempts come back as failures: the caller records them in the gap ledger.
   */
  async getTransactions(signatures: readonly string[]): Promise<ItemResult<WireTransaction>[]> {
    const config = { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: this.options.commitment };
    return this.callMany(
      'getTransaction',
      signatures.map((s) => [s, config]),
      (r, i) => asTransaction(r, signatures[i]),
      this.options.txBatchSize,
    );
  }

  /** The signatures of each block, in block order (= transaction index). */
  async getBlockSignatures(slots: readonly number[]): Promise<ItemResult<string[]>[]> {
    const config = {
      encoding: 'json',
      transactionDetails: 'signatures',
      rewards: false,
      maxSupportedTransactionVersion: 0,
      commitment: this.options.commitment,
    };
    return this.callMany(
      'getBlock',
      slots.map((s) => [s, config]),
      (r) => {
        const sigs = (r as { signatures?: unknown })?.signatures;
        if (!Array.isArray(sigs)) throw new RpcFailure('missing', 'getBlock: no signatures (block not available yet)', true);
        return sigs as string[];
      },
      BLOCK_BATCH,
    );
  }

  /** The hash of the chain's genesis block (base58 of 32 bytes): which chain the node serves. */
  async getGenesisHash(): Promise<string> {
    return this.call('getGenesisHash', [], (r) => {
      if (typeof r !== 'string' || tryDecodeBase58(r)?.length !== 32) throw malformed('getGenesisHash', 'expected the base58 of a 32-byte hash');
      return r;
    });
  }

  /** Block time of `slot`, or null when the slot has no block (skipped) or the node cannot tell. */
  async getBlockTime(slot: number): Promise<number | null> {
    const config = { encoding: 'json', transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0, commitment: this.options.commitment };
    const [res] = await this.callMany('getBlock', [[slot, config]], (r) => {
      const t = (r as { blockTime?: unknown })?.blockTime;
      return typeof t === 'number' ? t : null;
    });
    return res.ok ? res.value : null;
  }

  // ---- retries -----------------------------------------------------------------------------

  /** One call, retried by the policy (at most `maxAttempts` when given); throws the last RpcFailure. */
  async call<T>(method: string, params: readonly unknown[], parse: (result: unknown) => T, maxAttempts?: number): Promise<T> {
    const [res] = await this.callMany(method, [params], (r) => parse(r), 1, maxAttempts);
    if (!res.ok) throw res.failure;
    return res.value;
  }

  /**
   * Many calls of one method, `batchSize` per HTTP request. Each round sends what is still pending;
   * failed items wait the policy's backoff (the longest Retry-After hint among them) and go again.
   * A batch whose answer passed RPC_MAX_RESPONSE_BYTES is not the endpoint failing but too many
   * answers in one response: its items go again at once in batches half its size, without using an
   * attempt. A single call over the cap is an ordinary failure: retried with backoff, then returned
   * as a failure naming the cap (for transactions: the gap ledger, never a silent skip).
   */
  async callMany<T>(
    method: string,
    paramsList: readonly (readonly unknown[])[],
    parse: (result: unknown, index: number) => T,
    batchSize = 1,
    maxAttempts = Number.POSITIVE_INFINITY,
  ): Promise<ItemResult<T>[]> {
    const out: ItemResult<T>[] = new Array(paramsList.length);
    const attempts = paramsList.map(() => 0);
    /** Largest batch each item may go in: halved for the items of a batch answered over the cap. */
    const batchLimit = paramsList.map(() => batchSize);
    let pending = paramsList.map((_, i) => i);
    while (pending.length > 0) {
      this.throwIfClosed();
      const failed: { index: number; failure: RpcFailure; batchLength: number }[] = [];
      await Promise.all(
        batchesOf(pending, batchLimit).map(async (batch) => {
          const calls: JsonRpcCall[] = batch.map((i) => ({ method, params: paramsList[i] }));
          try {
            const outcomes = await this.transport.send(calls, this.closing.signal);
            const checkStarted = performance.now();
            outcomes.forEach((o, k) => {
              const index = batch[k];
              if (!o.ok) return void failed.push({ index, failure: o.failure, batchLength: batch.length });
              try {
                out[index] = { ok: true, value: parse(o.result, index) };
                this.failingSince = null;
              } catch (e) {
                const failure = e instanceof RpcFailure ? e : malformed(method, (e as Error).message);
                this.observer?.failure(method, failure.kind);
                failed.push({ index, failure, batchLength: batch.length });
              }
            });
            this.observer?.stage?.('rpc_check', (performance.now() - checkStarted) / 1000);
          } catch (e) {
            const failure = e instanceof RpcFailure ? e : new RpcFailure('network', (e as Error).message, true);
            for (const index of batch) failed.push({ index, failure, batchLength: batch.length });
          }
        }),
      );
      this.throwIfClosed(); // failures caused by close() are not failures of the items
      pending = [];
      let wait = 0;
      for (const { index, failure, batchLength } of failed) {
        if (failure.kind !== 'missing') this.failingSince ??= Date.now();
        if (failure.details.tooLarge && batchLength > 1) {
          batchLimit[index] = Math.min(batchLimit[index], Math.floor(batchLength / 2));
          pending.push(index);
          this.observer?.retry(method, failure.kind);
          continue;
        }
        const attempt = ++attempts[index];
        if (attempt < maxAttempts && this.policy.shouldRetry(attempt, failure)) {
          pending.push(index);
          wait = Math.max(wait, this.policy.delayMs(attempt, failure));
          this.observer?.retry(method, failure.kind);
        } else {
          out[index] = { ok: false, failure, attempts: attempt };
        }
      }
      pending.sort((a, b) => a - b);
      if (pending.length > 0) await Promise.race([this.sleep(wait), this.closed]);
    }
    return out;
  }

  private throwIfClosed(): void {
    if (this.closing.signal.aborted) throw new RpcClosed();
  }
}

/** `pending` in order, cut into batches no larger than any of their items' limits. */
function batchesOf(pending: readonly number[], limit: readonly number[]): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let cap = 0;
  for (const index of pending) {
    if (batch.length > 0 && batch.length + 1 > Math.min(cap, limit[index])) {
      batches.push(batch);
      batch = [];
    }
    cap = batch.length === 0 ? limit[index] : Math.min(cap, limit[index]);
    batch.push(index);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function malformed(method: string, why: string): RpcFailure {
  return new RpcFailure('malformed', `${method}: ${why}`, true);
}

function asInt(r: unknown, method: string): number {
  if (typeof r !== 'number' || !Number.isInteger(r)) throw malformed(method, 'expected an integer');
  return r;
}

function asString(r: unknown, method: string): string {
  if (typeof r !== 'string') throw malformed(method, 'expected a string');
  return r;
}

function asAccount(v: unknown, method: string): AccountData | null {
  if (v === null) return null;
  const a = v as { owner?: unknown; lamports?: unknown; data?: unknown };
  if (
    !a ||
    typeof a.owner !== 'string' ||
    typeof a.lamports !== 'number' ||
    !Array.isArray(a.data) ||
    typeof a.data[0] !== 'string' ||
    a.data[1] !== 'base64'
  ) {
    throw malformed(method, 'account without owner/lamports/base64 data');
  }
  return { owner: a.owner, lamports: a.lamports, data: new Uint8Array(Buffer.from(a.data[0], 'base64')) };
}

function asTransaction(r: unknown, signature: string): WireTransaction {
  if (r === null || r === undefined) throw new RpcFailure('missing', `getTransaction: ${signature} not available (null)`, true);
  // Everything decoding reads, checked before it is trusted: a body cut or rewritten by a proxy is retried, not decoded into unresolved amounts.
  const why = servedTransactionProblem(r);
  if (why) throw malformed('getTransaction', `${signature}: ${why}`);
  const tx = r as WireTransaction;
  if (tx.transaction.signatures[0] !== signature) throw malformed('getTransaction', `asked for ${signature}, got ${tx.transaction.signatures[0]}`);
  // A node without the status metadata yet: success and balances unknown. Retried, then the gap ledger — never decoded as if it had none.
  if (tx.meta === null) throw new RpcFailure('missing', `getTransaction: ${signature} served without its status metadata (meta: null)`, true);
  return tx;
}
