import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { Commitment, Ledger, StoredTx } from '../ledger/ledger';
import { listenOn } from './listen';
import type { ClusterContext } from './rpc-methods';

/**
 * The RPC's websocket (PubSub) endpoint for every simulated cluster: `ws://host:port/<cluster>`.
 * web3.js's Connection connects to the HTTP port + 1 with the same path unless given a
 * wsEndpoint, so the simulator listens there. Subscriptions, as a validator answers them:
 *
 * - `logsSubscribe(filter, {commitment})`: filter `{mentions: [one pubkey]}`, `"all"` or
 *   `"allWithVotes"` (there are no votes here). One `logsNotification`
 *   `{context: {slot}, value: {signature, err, logs}}` per transaction — failed ones included, as
 *   on a real cluster — once its slot reaches the subscription's commitment, in chain order.
 *   Only transactions after the subscription are sent.
 * - `slotSubscribe()`: a `slotNotification {parent, root, slot}` per produced block.
 * - `logsUnsubscribe([id])` / `slotUnsubscribe([id])` → true.
 *
 * The chain grows only through SimulatedMarket.produceSlot; whoever produces slots calls flush().
 * Faults are not injected here: the indexer uses this socket as a wake-up hint only.
 */

export interface WsServer {
  url(cluster: string): string;
  readonly port: number;
  /** Sends every notification now due (after new slots were produced). */
  flush(): void;
  /** Live subscriptions on a cluster (tests wait for a client's subscribe to land). */
  subscriptions(cluster: string): number;
  close(): Promise<void>;
}

interface LogsSubscription {
  kind: 'logs';
  id: number;
  socket: WebSocket;
  commitment: Commitment;
  /** null = every transaction. */
  mentions: string | null;
  /** Transactions in slots ≤ this were before the subscription or already sent. */
  sentThrough: number;
}

interface SlotSubscription {
  kind: 'slot';
  id: number;
  socket: WebSocket;
  sentThrough: number;
}

type Subscription = LogsSubscription | SlotSubscription;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const BASE58_PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

class WsError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startWsServer(clusters: ReadonlyMap<string, ClusterContext>, host: string, port: number): Promise<WsServer> {
  const subs = new Map<string, Map<number, Subscription>>([...clusters.keys()].map((c) => [c, new Map()]));
  let nextId = 0;
  const server: Server = createServer((_req, res) => {
    res.writeHead(426, { 'Content-Type': 'text/plain', Upgrade: 'websocket' }).end('Upgrade Required: this port speaks Solana PubSub over websocket');
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const cluster = (req.url ?? '/').split('?')[0].replace(/^\/+|\/+$/g, '');
    const ctx = clusters.get(cluster);
    if (!ctx) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => connected(ws, ctx, subs.get(cluster)!));
  });

  const connected = (ws: WebSocket, ctx: ClusterContext, mine: Map<number, Subscription>) => {
    ws.on('message', (raw) => {
      const answer = answerMessage(raw.toString(), ws, ctx, mine, () => ++nextId);
      if (answer !== null) ws.send(answer);
    });
    ws.on('close', () => {
      for (const [id, sub] of mine) if (sub.socket === ws) mine.delete(id);
    });
    ws.on('error', () => ws.terminate());
  };

  const { port: actual, url } = await listenOn(server, host, port, 'ws');
  return {
    port: actual,
    url,
    flush: () => {
      for (const [cluster, mine] of subs) if (mine.size > 0) flushCluster(clusters.get(cluster)!.market.ledger, mine);
    },
    subscriptions: (cluster) => subs.get(cluster)?.size ?? 0,
    close: async () => {
      // A normal closure (1000): clients such as web3.js's do not reconnect to a stopped simulator.
      const closing = [...wss.clients].map(
        (client) =>
          new Promise<void>((resolve) => {
            client.once('close', () => resolve());
            client.close(1000, 'simulator stopped');
          }),
      );
      await Promise.race([Promise.all(closing), new Promise((r) => setTimeout(r, 500))]);
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answerMessage(text: string, ws: WebSocket, ctx: ClusterContext, mine: Map<number, Subscription>, newId: () => number): string | null {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    return errorResponse(null, new WsError(PARSE_ERROR, 'Parse error'));
  }
  if (Array.isArray(request)) {
    const answers = request.map((r) => answerOne(r, ws, ctx, mine, newId)).filter((a): a is string => a !== null);
    return answers.length === 0 ? null : `[${answers.join(',')}]`;
  }
  return answerOne(request, ws, ctx, mine, newId);
}

function answerOne(request: unknown, ws: WebSocket, ctx: ClusterContext, mine: Map<number, Subscription>, newId: () => number): string | null {
  if (typeof request !== 'object' || request === null) return errorResponse(null, new WsError(INVALID_REQUEST, 'Invalid request'));
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = typeof r.id === 'number' || typeof r.id === 'string' ? r.id : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return errorResponse(id, new WsError(INVALID_REQUEST, 'Invalid request'));
  const params = r.params === undefined || r.params === null ? [] : r.params;
  try {
    if (!Array.isArray(params)) throw new WsError(INVALID_PARAMS, 'Invalid params: expected an array of parameters');
    const result = dispatch(r.method, params, ws, ctx, mine, newId);
    // A notification (no id) gets no answer: web3.js pings this way every few seconds.
    return r.id === undefined ? null : JSON.stringify({ jsonrpc: '2.0', result, id });
  } catch (e) {
    if (!(e instanceof WsError)) throw e;
    return r.id === undefined ? null : errorResponse(id, e);
  }
}

function dispatch(method: string, params: unknown[], ws: WebSocket, ctx: ClusterContext, mine: Map<number, Subscription>, newId: () => number): unknown {
  const ledger = ctx.market.ledger;
  switch (method) {
    case 'logsSubscribe': {
      const mentions = logsFilter(params[0]);
      const commitment = commitmentOf(params[1]);
      const id = newId();
      mine.set(id, { kind: 'logs', id, socket: ws, commitment, mentions, sentThrough: ledger.visibleSlot(commitment) });
      return id;
    }
    case 'slotSubscribe': {
      const id = newId();
      mine.set(id, { kind: 'slot', id, socket: ws, sentThrough: ledger.head });
      return id;
    }
    case 'logsUnsubscribe':
    case 'slotUnsubscribe': {
      const id = params[0];
      const sub = typeof id === 'number' ? mine.get(id) : undefined;
      if (!sub || sub.socket !== ws || sub.kind !== (method === 'logsUnsubscribe' ? 'logs' : 'slot'))
        throw new WsError(INVALID_PARAMS, 'Invalid subscription id.');
      mine.delete(sub.id);
      return true;
    }
    default:
      throw new WsError(METHOD_NOT_FOUND, 'Method not found');
  }
}

/** The pubkey of `{mentions: [pubkey]}`, or null for "all" / "allWithVotes". */
function logsFilter(filter: unknown): string | null {
  if (filter === 'all' || filter === 'allWithVotes') return null;
  if (typeof filter === 'object' && filter !== null && 'mentions' in filter) {
    const mentions = (filter as { mentions: unknown }).mentions;
    if (!Array.isArray(mentions) || mentions.length !== 1) throw new WsError(INVALID_PARAMS, 'Invalid Request: Only 1 address supported');
    const key = mentions[0];
    if (typeof key !== 'string' || !BASE58_PUBKEY.test(key)) throw new WsError(INVALID_PARAMS, `Invalid Request: Invalid pubkey provided`);
    return key;
  }
  throw new WsError(INVALID_PARAMS, 'Invalid params: expected "all", "allWithVotes" or {"mentions": [<pubkey>]}');
}

function commitmentOf(config: unknown): Commitment {
  if (config === undefined || config === null) return 'finalized';
  if (typeof config !== 'object') throw new WsError(INVALID_PARAMS, 'Invalid params: expected a config object');
  const c = (config as { commitment?: unknown }).commitment;
  if (c === undefined || c === null) return 'finalized';
  if (c === 'processed' || c === 'confirmed' || c === 'finalized') return c;
  throw new WsError(INVALID_PARAMS, `Invalid params: unknown commitment ${JSON.stringify(c)}`);
}

/** Sends each subscription what became visible at its commitment since its last flush. */
function flushCluster(ledger: Ledger, mine: Map<number, Subscription>): void {
  const logsCache = new Map<string, unknown>();
  const logsOf = (tx: StoredTx) => {
    let logs = logsCache.get(tx.signature);
    if (logs === undefined) {
      logs = (JSON.parse(tx.metaJson) as { logMessages?: string[] }).logMessages ?? [];
      logsCache.set(tx.signature, logs);
    }
    return logs;
  };
  for (const sub of mine.values()) {
    if (sub.socket.readyState !== WebSocket.OPEN) continue;
    if (sub.kind === 'slot') {
      const root = ledger.visibleSlot('finalized');
      for (const slot of ledger.blockSlotsBetween(sub.sentThrough + 1, ledger.head)) {
        const block = ledger.block(slot)!;
        send(sub, 'slotNotification', { parent: block.parentSlot, root: Math.min(root, slot), slot });
      }
      sub.sentThrough = ledger.head;
      continue;
    }
    const through = ledger.visibleSlot(sub.commitment);
    for (const slot of ledger.blockSlotsBetween(sub.sentThrough + 1, through)) {
      for (const tx of ledger.block(slot)!.transactions) {
        if (sub.mentions !== null && !tx.accountKeys.includes(sub.mentions)) continue;
        send(sub, 'logsNotification', { context: { slot }, value: { signature: tx.signature, err: tx.err, logs: logsOf(tx) } });
      }
    }
    sub.sentThrough = Math.max(sub.sentThrough, through);
  }
}

function send(sub: Subscription, method: string, result: unknown): void {
  sub.socket.send(JSON.stringify({ jsonrpc: '2.0', method, params: { result, subscription: sub.id } }));
}

function errorResponse(id: unknown, e: WsError): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code: e.code, message: e.message }, id });
}
