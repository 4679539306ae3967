import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOn } from './listen';
import { FAULT_KINDS, type FaultKind, type FaultOptions } from './faults';
import { INVALID_REQUEST, PARSE_ERROR, RpcError } from './rpc-errors';
import { dispatch, RawJson, type ClusterContext } from './rpc-methods';

/**
 * One HTTP server for every simulated cluster: `POST /<cluster>` speaks Solana JSON-RPC (single
 * and batch bodies), `GET /<cluster>/ground-truth` returns what was generated, `GET /health` and
 * `GET /<cluster>/health` answer "ok", and `PUT /<cluster>/faults` reconfigures fault injection
 * at runtime (for tests driving a separate process). Faults never touch the non-RPC routes.
 */

const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface RpcServer {
  url(cluster: string): string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startRpcServer(clusters: ReadonlyMap<string, ClusterContext>, host: string, port: number): Promise<RpcServer> {
  const hanging = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    handle(req, res, clusters, hanging).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `simulator error: ${(e as Error).message}`);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 20_000;
  const { port: actual, url } = await listenOn(server, host, port, 'http');
  return {
    port: actual,
    url,
    close: async () => {
      for (const t of hanging) clearTimeout(t);
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, clusters: ReadonlyMap<string, ClusterContext>, hanging: Set<NodeJS.Timeout>): Promise<void> {
  const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '') || '/';
  const parts = path.split('/').filter(Boolean);
  if (req.method === 'GET' && (path === '/health' || (parts.length === 2 && parts[1] === 'health' && clusters.has(parts[0])))) {
    send(res, 200, 'text/plain', 'ok');
    return;
  }
  const ctx = clusters.get(parts[0] ?? '');
  if (!ctx) {
    send(
      res,
      404,
      'application/json',
      JSON.stringify({ error: `unknown cluster path ${path}; use one of ${[...clusters.keys()].map((c) => `/${c}`).join(', ')}` }),
    );
    return;
  }
  if (parts.length === 2 && parts[1] === 'ground-truth' && req.method === 'GET') {
    send(res, 200, 'application/json', JSON.stringify(ctx.market.groundTruth()));
    return;
  }
  if (parts.length === 2 && parts[1] === 'faults') {
    if (req.method === 'GET') {
      send(
        res,
        200,
        'application/json',
        JSON.stringify({ options: ctx.faults.current, injected: ctx.faults.injected, signatureIndexLagged: ctx.faults.signatureIndexLagged }),
      );
      return;
    }
    if (req.method === 'PUT' || req.method === 'POST') {
      const body = await readBody(req);
      try {
        ctx.faults.configure(parseFaultOptions(JSON.parse(body.toString('utf8')), ctx.faults.current));
      } catch (e) {
        send(res, 400, 'application/json', JSON.stringify({ error: (e as Error).message }));
        return;
      }
      send(res, 200, 'application/json', JSON.stringify({ options: ctx.faults.current }));
      return;
    }
  }
  if (parts.length !== 1 || req.method !== 'POST') {
    if (parts.length === 1 && req.method === 'GET') send(res, 405, 'text/plain', 'Used HTTP Method is not allowed. POST or OPTIONS is required');
    else send(res, 404, 'text/plain', 'Not Found');
    return;
  }

  let body: Buffer;
  try {
    body = await readBody(req);
  } catch {
    send(res, 413, 'text/plain', 'Payload Too Large');
    return;
  }

  const fault = ctx.faults.nextRequestFault();
  if (fault === 'timeout') {
    // Hold the request past any sane client timeout, then drop the connection without an answer.
    const timer = setTimeout(() => {
      hanging.delete(timer);
      req.socket.destroy();
    }, ctx.faults.current.hangMs);
    hanging.add(timer);
    return;
  }
  if (fault === '429') {
    res.setHeader('Retry-After', '1');
    send(
      res,
      429,
      'application/json',
      JSON.stringify({ jsonrpc: '2.0', error: { code: 429, message: 'Too many requests for a specific RPC call' }, id: null }),
    );
    return;
  }
  if (fault === '5xx') {
    const status = ctx.faults.nextServerErrorStatus();
    send(
      res,
      status,
      'text/plain',
      status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Unavailable' : status === 504 ? 'Gateway Timeout' : 'Internal Server Error',
    );
    return;
  }

  const answer = answerRpc(body, ctx);
  if (answer === null) {
    res.writeHead(200).end();
    return;
  }
  if (fault === 'malformed') {
    // A proxy that cut the body short: valid status, invalid JSON.
    send(res, 200, 'application/json', answer.slice(0, Math.max(1, Math.floor(answer.length / 2))));
    return;
  }
  send(res, 200, 'application/json', answer);
}

/** The JSON text answering one HTTP body, or null when it held only notifications. */
export function answerRpc(body: Buffer | string, ctx: ClusterContext): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch {
    return errorResponse(null, new RpcError(PARSE_ERROR, 'Parse error'));
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return errorResponse(null, new RpcError(INVALID_REQUEST, 'Invalid request'));
    const answers = parsed.map((r) => answerOne(r, ctx)).filter((a): a is string => a !== null);
    return answers.length === 0 ? null : `[${answers.join(',')}]`;
  }
  return answerOne(parsed, ctx);
}

function answerOne(request: unknown, ctx: ClusterContext): string | null {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return errorResponse(null, new RpcError(INVALID_REQUEST, 'Invalid request'));
  const r = request as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = validId(r.id) ? r.id : null;
  if (r.jsonrpc !== '2.0' || typeof r.method !== 'string' || !validId(r.id ?? null)) return errorResponse(id, new RpcError(INVALID_REQUEST, 'Invalid request'));
  const params = r.params === undefined || r.params === null ? [] : r.params;
  if (!Array.isArray(params)) return errorResponse(id, new RpcError(-32602, 'Invalid params: expected an array of parameters'));
  let result: unknown;
  try {
    result = dispatch(r.method, params, ctx);
  } catch (e) {
    if (e instanceof RpcError) return r.id === undefined ? null : errorResponse(id, e);
    throw e;
  }
  if (r.id === undefined) return null; // a notification
  const json = result instanceof RawJson ? result.json : JSON.stringify(result === undefined ? null : result);
  return `{"jsonrpc":"2.0","result":${json},"id":${JSON.stringify(id)}}`;
}

function validId(id: unknown): id is string | number | null {
  return id === null || typeof id === 'string' || typeof id === 'number';
}

function errorResponse(id: unknown, e: RpcError): string {
  const error = e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data };
  return JSON.stringify({ jsonrpc: '2.0', error, id });
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Validates a fault configuration (HTTP or env), filling gaps from `base`. */
export function parseFaultOptions(input: unknown, base: FaultOptions): FaultOptions {
  if (typeof input !== 'object' || input === null) throw new Error('fault options must be an object');
  const o = input as Record<string, unknown>;
  const out: FaultOptions = { ...base };
  if (o.rate !== undefined) {
    if (typeof o.rate !== 'number' || !(o.rate >= 0 && o.rate <= 1)) throw new Error('rate must be a number in 0..1');
    out.rate = o.rate;
  }
  if (o.kinds !== undefined) {
    if (!Array.isArray(o.kinds) || !o.kinds.every((k) => (FAULT_KINDS as readonly string[]).includes(k)))
      throw new Error(`kinds must be a subset of ${FAULT_KINDS.join(', ')}`);
    out.kinds = o.kinds as FaultKind[];
  }
  if (o.seed !== undefined) {
    if (typeof o.seed !== 'string') throw new Error('seed must be a string');
    out.seed = o.seed;
  }
  for (const key of ['hangMs', 'missingTxRequests'] as const) {
    if (o[key] !== undefined) {
      const v = o[key];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${key} must be a non-negative integer`);
      out[key] = v;
    }
  }
  for (const key of ['signatureIndexLagSlots', 'signatureIndexCatchUpMs'] as const) {
    if (o[key] !== undefined) {
      const v = o[key];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${key} must be a non-negative integer`);
      out[key] = v;
    }
  }
  if (o.signatureIndexContext !== undefined) {
    if (o.signatureIndexContext !== 'index' && o.signatureIndexContext !== 'bank') throw new Error('signatureIndexContext must be index or bank');
    out.signatureIndexContext = o.signatureIndexContext;
  }
  if (o.missingTxRate !== undefined) {
    if (typeof o.missingTxRate !== 'number' || !(o.missingTxRate >= 0 && o.missingTxRate <= 1)) throw new Error('missingTxRate must be a number in 0..1');
    out.missingTxRate = o.missingTxRate;
  }
  return out;
}
