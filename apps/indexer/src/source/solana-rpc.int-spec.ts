import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vectorCase } from '../decode/testing/swap-transaction-vectors';
import type { RpcFailureKind } from './retry-policy';
import { RpcClosed, SolanaRpc, type SolanaRpcOptions } from './solana-rpc';

/**
 * The RPC source against a scripted JSON-RPC server: every failure kind of DESIGN §7 in turn, retried
 * by our policy until the batch resolves; permanent errors and endless nulls come back as failures
 * (the caller's gap ledger), never as silence.
 */

type Script = (req: { method: string; ids: unknown[]; body: unknown }, res: ServerResponse, n: number) => boolean;

let server: Server;
let url: string;
let script: Script[] = [];
let requests = 0;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      const calls = Array.isArray(body) ? body : [body];
      const n = requests++;
      for (const step of script) if (step({ method: calls[0].method, ids: calls.map((c: { id: unknown }) => c.id), body }, res, n)) return;
      res.writeHead(500).end('no script');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  script = [];
  requests = 0;
});

const tx = vectorCase('a_v1_sell_x_legacy_with_spread_config').result;
const sig = tx.transaction.signatures[0];
const json = (res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const answer = (ids: unknown[], result: (i: number) => unknown) => ids.map((id, i) => ({ jsonrpc: '2.0', id, result: result(i) }));

function rpc(observed: { failures: RpcFailureKind[]; retries: RpcFailureKind[] }, maxAttempts = 8, options: Partial<SolanaRpcOptions> = {}) {
  return new SolanaRpc({
    url,
    commitment: 'confirmed',
    timeoutMs: 300,
    rps: 10_000,
    concurrency: 2,
    retry: { maxAttempts, baseDelayMs: 5, maxDelayMs: 50 },
    txBatchSize: 10,
    observer: { request: () => undefined, failure: (_m, k) => observed.failures.push(k), retry: (_m, k) => observed.retries.push(k) },
    ...options,
  });
}

it('retries a batch through 429, 5xx, a timeout, a cut body and a transaction not served yet', async () => {
  const hidden = new Map<number, number>();
  script = [
    (_r, res, n) => n === 0 && (json(res, { error: 'slow down' }, 429, { 'retry-after': '0' }), true),
    (_r, res, n) => n === 1 && (res.writeHead(503).end('Service Unavailable'), true),
    (_r, _res, n) => n === 2, // never answers: the client times out
    (r, res, n) => n === 3 && (res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(r.ids, () => tx)).slice(0, 40)), true),
    (r, res) => {
      // Item 1 is "not available yet" twice, then served.
      json(
        res,
        answer(r.ids, (i) => {
          if (r.ids.length === 3 && i === 1) hidden.set(1, (hidden.get(1) ?? 0) + 1);
          return r.ids.length === 3 && i === 1 && hidden.get(1)! <= 2 ? null : tx;
        }),
      );
      return true;
    },
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const results = await rpc(observed).getTransactions([sig, sig, sig]);
  expect(results.map((r) => r.ok)).toEqual([true, true, true]);
  expect(results[1].ok && results[1].value.transaction.signatures[0]).toBe(sig);
  expect(new Set(observed.retries)).toEqual(new Set(['rate_limited', 'server_error', 'timeout', 'malformed', 'missing']));
});

it('returns a permanent RPC error at once, without retrying', async () => {
  script = [
    (r, res) => (
      json(
        res,
        r.ids.map((id) => ({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params: bad signature' } })),
      ),
      true
    ),
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const [res] = await rpc(observed).getTransactions([sig]);
  expect(res.ok).toBe(false);
  expect(!res.ok && res.attempts).toBe(1);
  expect(!res.ok && res.failure.message).toContain('-32602');
  expect(observed.retries).toEqual([]);
});

it('getSlot with one attempt: one request, no backoff, the failure at once', async () => {
  script = [(r, res) => r.method === 'getSlot' && (res.writeHead(503).end('down'), true)];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  await expect(rpc(observed).getSlot({ attempts: 1 })).rejects.toMatchObject({ kind: 'server_error' });
  expect(requests).toBe(1);
  expect(observed.retries).toEqual([]);
  await expect(rpc(observed).getSlot()).rejects.toMatchObject({ kind: 'server_error' });
  expect(requests).toBe(1 + 8); // the policy's attempts otherwise
});

it('gives up on a transaction that stays missing after every attempt, and says so', async () => {
  script = [
    (r, res) => (
      json(
        res,
        answer(r.ids, () => null),
      ),
      true
    ),
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const [res] = await rpc(observed, 4).getTransactions([sig]);
  expect(res.ok).toBe(false);
  expect(!res.ok && res.failure.kind).toBe('missing');
  expect(!res.ok && res.attempts).toBe(4);
  expect(requests).toBe(4);
});

it('refuses a result of the wrong shape or for another signature (malformed → retried)', async () => {
  let n = 0;
  script = [
    (r, res) => (
      json(
        res,
        answer(r.ids, () => (n++ === 0 ? { slot: 'x' } : n === 2 ? { ...tx, transaction: { ...tx.transaction, signatures: ['other'] } } : tx)),
      ),
      true
    ),
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const [res] = await rpc(observed).getTransactions([sig]);
  expect(res.ok).toBe(true);
  expect(observed.retries).toEqual(['malformed', 'malformed']);
});

it('retries a transaction served without its metadata (meta: null) or with its token balances / inner instructions cut off', async () => {
  const { postTokenBalances: _post, ...noPost } = tx.meta!;
  const { innerInstructions: _inner, ...noInner } = tx.meta!;
  const answers = [
    { ...tx, meta: null },
    { ...tx, meta: noPost },
    { ...tx, meta: { ...tx.meta!, postTokenBalances: [{ accountIndex: 1, mint: 'M', uiTokenAmount: { amount: 12 } }] } },
    { ...tx, meta: noInner },
    tx,
  ];
  let n = 0;
  script = [
    (r, res) => (
      json(
        res,
        answer(r.ids, () => answers[Math.min(n++, answers.length - 1)]),
      ),
      true
    ),
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const [res] = await rpc(observed).getTransactions([sig]);
  expect(res.ok && res.value).toEqual(tx); // only the complete answer is taken
  // (a slow machine may add a client timeout to the retries; the bad answers are what matters)
  expect(new Set(observed.retries.filter((k) => k !== 'timeout'))).toEqual(new Set(['missing', 'malformed']));
});

it('a transaction that keeps coming without metadata ends as a failure (the gap ledger), not as a decoded transaction', async () => {
  script = [
    (r, res) => (
      json(
        res,
        answer(r.ids, () => ({ ...tx, meta: null })),
      ),
      true
    ),
  ];
  const [res] = await rpc({ failures: [], retries: [] }, 3).getTransactions([sig]);
  expect(res.ok).toBe(false);
  expect(!res.ok && [res.failure.kind, res.attempts]).toEqual(['missing', 3]);
});

it('pages accounts by 100 in one batch and keeps the context slot', async () => {
  script = [
    (r, res) => (
      json(
        res,
        (r.body as { id: unknown; params: [string[]] }[]).map((c) => ({
          jsonrpc: '2.0',
          id: c.id,
          result: { context: { slot: 42 }, value: c.params[0].map(() => null) },
        })),
      ),
      true
    ),
  ];
  const addresses = Array.from({ length: 250 }, (_, i) => `addr${i}`);
  const out = await rpc({ failures: [], retries: [] }).getMultipleAccounts(addresses);
  expect(out.slots).toEqual([42, 42, 42]);
  expect(out.accounts.size).toBe(250);
  expect(requests).toBe(1);
});

it('close() ends backoff waits and in-flight requests at once, with RpcClosed rather than item failures', async () => {
  // A dead endpoint with long backoffs: without close() each call would wait out ~minutes of retries.
  script = [(r, res) => r.method === 'getSlot' && (res.writeHead(503).end('down'), true), (r) => r.method === 'getTransaction']; // the latter never answers
  const slow = new SolanaRpc({
    url,
    commitment: 'confirmed',
    timeoutMs: 60_000,
    rps: 10_000,
    concurrency: 2,
    retry: { maxAttempts: 10, baseDelayMs: 600_000, maxDelayMs: 600_000 },
    txBatchSize: 10,
  });
  const backingOff = slow.getSlot();
  const inFlight = slow.getTransactions([sig]);
  await new Promise((r) => setTimeout(r, 200));
  slow.close();
  await expect(backingOff).rejects.toThrow(RpcClosed);
  await expect(inFlight).rejects.toThrow(RpcClosed); // not an item failure the gap ledger would record
  await expect(slow.getSlot()).rejects.toThrow(RpcClosed);
});

// ---- bounded responses (RPC_MAX_RESPONSE_BYTES) ------------------------------------------------

/** Streams `chunk` for as long as the client reads (backpressure respected); `sent` when it hangs up. */
function endless(res: ServerResponse, status: number, sent: (bytes: number) => void): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let bytes = 0;
  const pump = () => {
    // 1 GiB: a client that never stops reading fails the test, it does not hang it
    while (!res.destroyed && bytes < 2 ** 30) {
      bytes += chunk.length;
      if (!res.write(chunk)) return;
    }
  };
  res.on('drain', pump);
  res.on('close', () => sent(bytes));
  res.write('[');
  pump();
}

it('an endless answer is cut at the cap: the request is aborted within bounded bytes and time, with an error naming RPC_MAX_RESPONSE_BYTES', async () => {
  const MiB = 1024 * 1024;
  const sent: number[] = [];
  script = [(r, res) => r.method === 'getSlot' && (endless(res, 200, (b) => sent.push(b)), true)];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const started = performance.now();
  // A long timeout: what stops the read is the cap, not the clock.
  const failure = await rpc(observed, 1, { maxResponseBytes: MiB, timeoutMs: 30_000 })
    .getSlot()
    .catch((e: unknown) => e);
  expect(performance.now() - started).toBeLessThan(5_000);
  expect(failure).toMatchObject({ kind: 'malformed', details: { tooLarge: true } });
  expect((failure as Error).message).toBe(
    `getSlot: response over the RPC_MAX_RESPONSE_BYTES cap of ${MiB} bytes (passed ${MiB} bytes; request aborted) for a single call (raise RPC_MAX_RESPONSE_BYTES if the endpoint legitimately answers this much)`,
  );
  expect(observed.failures).toEqual(['malformed']);
  // The server saw the client hang up: what it pushed is the cap plus the sockets' buffers, not the gigabyte it would have sent.
  await new Promise((r) => setTimeout(r, 100));
  expect(sent).toHaveLength(1);
  expect(sent[0]).toBeLessThan(32 * MiB);
});

it('a Content-Length over the cap fails at once, without waiting for the body', async () => {
  script = [
    (r, res) =>
      r.method === 'getSlot' && (res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) }).write('[1'), true),
  ];
  const started = performance.now();
  const failure = await rpc({ failures: [], retries: [] }, 1, { maxResponseBytes: 64 * 1024, timeoutMs: 30_000 })
    .getSlot()
    .catch((e: unknown) => e);
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(failure).toMatchObject({ kind: 'malformed', details: { tooLarge: true } });
  expect((failure as Error).message).toContain(`RPC_MAX_RESPONSE_BYTES cap of ${64 * 1024} bytes (announced ${100 * 1024 * 1024} bytes`);
});

it('an endless error body is read only as far as the quote needs', async () => {
  script = [(r, res) => r.method === 'getSlot' && (endless(res, 502, () => undefined), true)];
  const started = performance.now();
  const failure = await rpc({ failures: [], retries: [] }, 1, { timeoutMs: 30_000 })
    .getSlot()
    .catch((e: unknown) => e);
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(failure).toMatchObject({ kind: 'server_error', details: { status: 502 } });
});

it('a batch answered over the cap is split and sent again at once, without using an attempt, until every answer fits', async () => {
  const oneAnswer = Buffer.byteLength(JSON.stringify(answer([1_000_000], () => tx)));
  const batchSizes: number[] = [];
  script = [
    (r, res) => (
      batchSizes.push(r.ids.length),
      json(
        res,
        answer(r.ids, () => tx),
      ),
      true
    ),
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  // Room for three answers: 10 → 5 + 5 (both over) → five of 2. Two attempts only: the splits must not spend them.
  const results = await rpc(observed, 2, { maxResponseBytes: Math.floor(oneAnswer * 3.5) }).getTransactions(Array.from({ length: 10 }, () => sig));
  expect(results.map((r) => r.ok)).toEqual(Array.from({ length: 10 }, () => true));
  expect(results.every((r) => r.ok && r.value.transaction.signatures[0] === sig)).toBe(true);
  expect(batchSizes.slice(0, 3)).toEqual([10, 5, 5]);
  expect(batchSizes.slice(3)).toEqual([2, 2, 2, 2, 2]);
  expect(observed.failures).toEqual(['malformed', 'malformed', 'malformed']); // counted as malformed answers
  expect(observed.retries).toEqual(Array.from({ length: 20 }, () => 'malformed'));
});

it('a single answer over the cap is retried with backoff like any fault, then returned as a failure naming the cap (the gap ledger, never a silent skip)', async () => {
  const oneAnswer = Buffer.byteLength(JSON.stringify(answer([1_000_000], () => tx)));
  script = [
    (r, res) => (
      json(
        res,
        answer(r.ids, () => tx),
      ),
      true
    ),
  ];
  const observed = { failures: [] as RpcFailureKind[], retries: [] as RpcFailureKind[] };
  const cap = Math.floor(oneAnswer / 2);
  const [res] = await rpc(observed, 3, { maxResponseBytes: cap }).getTransactions([sig]);
  expect(res.ok).toBe(false);
  expect(!res.ok && [res.failure.kind, res.attempts]).toEqual(['malformed', 3]);
  expect(!res.ok && res.failure.message).toContain(`getTransaction: response over the RPC_MAX_RESPONSE_BYTES cap of ${cap} bytes`);
  expect(requests).toBe(3);
  expect(observed.retries).toEqual(['malformed', 'malformed']);
});

// ---- secrets in the endpoint URL ---------------------------------------------------------------

it('errors name the endpoint with its credentials masked, and quote the body cut, without control characters or the secret echoed', async () => {
  const keyed = `${url}?api-key=SEKRET-123`;
  script = [
    (_r, res, n) => n === 0 && (json(res, { error: 'slow down' }, 429), true),
    (_r, res) => (res.writeHead(500).end(`upstream said:\n\u001b[31m invalid key SEKRET-123 for /?api-key=SEKRET-123\u0000 ${'z'.repeat(10_000)}`), true),
  ];
  const client = rpc({ failures: [], retries: [] }, 1, { url: keyed });
  await expect(client.getSlot()).rejects.toThrow(`HTTP 429 from ${url}?api-key=***`);
  const failure = (await client.getSlot().catch((e: unknown) => e)) as Error;
  expect(failure.message.startsWith(`HTTP 500 from ${url}?api-key=***: upstream said:  [31m invalid key *** for /?api-key=*** `)).toBe(true);
  expect(failure.message).not.toContain('SEKRET');
  expect(failure.message).not.toMatch(/[\u0000-\u001f\u007f]/);
  expect(failure.message.length).toBeLessThan(250);
});

it('userinfo in the URL is sent as Basic authorization (fetch refuses such URLs) and masked in errors', async () => {
  const seen: (string | undefined)[] = [];
  const withUser = url.replace('http://', 'http://user:PASSWORD-XYZ@');
  const original = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => (seen.push(req.headers.authorization), original(req, res)));
  try {
    script = [
      (r, res, n) =>
        r.method === 'getSlot' &&
        (n === 0 ? json(res, { jsonrpc: '2.0', id: (r.body as { id: number }).id, result: 42 }) : res.writeHead(503).end('down'), true),
    ];
    const client = rpc({ failures: [], retries: [] }, 1, { url: withUser });
    await expect(client.getSlot()).resolves.toBe(42);
    expect(seen[0]).toBe(`Basic ${Buffer.from('user:PASSWORD-XYZ').toString('base64')}`);
    await expect(client.getSlot()).rejects.toThrow(`HTTP 503 from http://user:***@127.0.0.1:`);
    await expect(
      rpc({ failures: [], retries: [] }, 1, { url: withUser })
        .getSlot()
        .catch((e: Error) => e.message),
    ).resolves.not.toContain('PASSWORD');
  } finally {
    server.removeAllListeners('request');
    server.on('request', original);
  }
});
