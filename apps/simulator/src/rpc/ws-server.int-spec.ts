import { Connection, PublicKey, type Context, type Logs } from '@solana/web3.js';
import { WebSocket } from 'ws';
import { startSimulator, type RunningSimulator } from '../simulator';
import type { SimulatedMarket } from '../market/market-generator';
import { HADRON_PROGRAM_V1, HADRON_PROGRAM_V2 } from '../spl/well-known';

/**
 * The simulator's PubSub websocket, driven by @solana/web3.js 1.x unmodified: a Connection built
 * from the HTTP URL alone finds it on port + 1 (no wsEndpoint), and Connection.onLogs — what the
 * indexer's live wake-up uses — receives one notification per new transaction mentioning the
 * program, with the signature, error and log lines getTransaction shows.
 */

const HISTORY_END = 1_750_000_000_000;
const CLUSTER = 'mainnet-beta' as const;

interface Received {
  slot: number;
  signature: string;
  err: unknown;
  logs: string[];
  /** The ledger head when it arrived (confirmed = one slot behind the head at least). */
  headOnArrival: number;
}

async function waitFor(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every transaction in slots (after, through] whose keys include `address`, in chain order, as a notification shows it. */
function expectedNotifications(market: SimulatedMarket, address: string, after: number, through: number): Omit<Received, 'headOnArrival'>[] {
  const out: Omit<Received, 'headOnArrival'>[] = [];
  for (const slot of market.ledger.blockSlotsBetween(after + 1, through)) {
    for (const tx of market.ledger.block(slot)!.transactions) {
      if (!tx.accountKeys.includes(address)) continue;
      out.push({ slot, signature: tx.signature, err: tx.err, logs: (JSON.parse(tx.metaJson) as { logMessages: string[] }).logMessages });
    }
  }
  return out;
}

function listen(connection: Connection, market: SimulatedMarket, address: string, into: Received[]): number {
  return connection.onLogs(
    new PublicKey(address),
    (logs: Logs, ctx: Context) => into.push({ slot: ctx.slot, signature: logs.signature, err: logs.err, logs: logs.logs, headOnArrival: market.ledger.head }),
    'confirmed',
  );
}

describe('websocket logsSubscribe, advanced by hand', () => {
  let sim: RunningSimulator;
  let connection: Connection;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 'ws', pools: 8, historySeconds: 60, historyEndTimeMs: HISTORY_END, live: false });
    connection = new Connection(sim.urls[CLUSTER], { commitment: 'confirmed' });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('serves PubSub on the HTTP port + 1, the endpoint web3.js derives', () => {
    expect(sim.wsUrls[CLUSTER]).toBe(sim.urls[CLUSTER].replace('http://', 'ws://').replace(`:${sim.port}/`, `:${sim.port + 1}/`));
  });

  it('Connection.onLogs gets exactly the new transactions mentioning the program, in order, then nothing after removal', async () => {
    const market = sim.market(CLUSTER);
    const program: Received[] = [];
    const pool = sim.groundTruth(CLUSTER).pools[0].config;
    const onPool: Received[] = [];
    const programSub = listen(connection, market, HADRON_PROGRAM_V1, program);
    const poolSub = listen(connection, market, pool, onPool);
    await waitFor('both subscriptions', () => sim.websocketSubscriptions(CLUSTER) === 2);
    const subscribedAt = market.ledger.head;

    sim.advance(CLUSTER, 40);
    const expected = expectedNotifications(market, HADRON_PROGRAM_V1, subscribedAt, market.ledger.head);
    const expectedOnPool = expectedNotifications(market, pool, subscribedAt, market.ledger.head);
    expect(expected.length).toBeGreaterThan(20);
    expect(expectedOnPool.length).toBeGreaterThan(5);
    expect(expectedOnPool.length).toBeLessThan(expected.length);
    await waitFor('every notification', () => program.length >= expected.length && onPool.length >= expectedOnPool.length);
    expect(program.map(({ headOnArrival: _h, ...n }) => n)).toEqual(expected);
    expect(onPool.map(({ headOnArrival: _h, ...n }) => n)).toEqual(expectedOnPool);
    // Failed transactions are notified too, with their error (as a validator does).
    const failed = new Set(sim.groundTruth(CLUSTER).failed_transactions.map((f) => f.signature));
    for (const n of program) expect(n.err === null).toBe(!failed.has(n.signature));

    await connection.removeOnLogsListener(programSub);
    await connection.removeOnLogsListener(poolSub);
    await waitFor('unsubscribed', () => sim.websocketSubscriptions(CLUSTER) === 0);
    const before = program.length;
    sim.advance(CLUSTER, 20);
    await new Promise((r) => setTimeout(r, 200));
    expect(program.length).toBe(before);
  });

  it('answers raw PubSub requests as a validator does: slotSubscribe, one-address mentions, unknown methods, unknown paths', async () => {
    const socket = new WebSocket(sim.wsUrls.devnet);
    const messages: {
      id?: number;
      result?: unknown;
      error?: { code: number; message: string };
      method?: string;
      params?: { result: { slot: number; parent: number } };
    }[] = [];
    socket.on('message', (m) => messages.push(JSON.parse(m.toString())));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const request = (id: number, method: string, params: unknown[]) => socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    request(1, 'slotSubscribe', []);
    request(2, 'logsSubscribe', [{ mentions: [HADRON_PROGRAM_V1, HADRON_PROGRAM_V2] }, { commitment: 'confirmed' }]);
    request(3, 'accountSubscribe', [HADRON_PROGRAM_V1]);
    request(4, 'logsSubscribe', ['all', { commitment: 'bogus' }]);
    await waitFor('answers', () => messages.filter((m) => m.id !== undefined).length === 4);
    const byId = (id: number) => messages.find((m) => m.id === id)!;
    expect(typeof byId(1).result).toBe('number');
    expect(byId(2).error).toEqual({ code: -32602, message: 'Invalid Request: Only 1 address supported' });
    expect(byId(3).error?.code).toBe(-32601);
    expect(byId(4).error?.code).toBe(-32602);

    const head = sim.market('devnet').ledger.head;
    sim.advance('devnet', 10);
    const blocks = sim.market('devnet').ledger.blockSlotsBetween(head + 1, head + 10);
    await waitFor('slot notifications', () => messages.filter((m) => m.method === 'slotNotification').length === blocks.length);
    expect(messages.filter((m) => m.method === 'slotNotification').map((m) => m.params!.result.slot)).toEqual(blocks);
    request(5, 'slotUnsubscribe', [byId(1).result]);
    await waitFor('unsubscribe', () => byId(5) !== undefined);
    expect(byId(5).result).toBe(true);
    socket.close();

    const unknown = new WebSocket(sim.wsUrls.devnet.replace('/devnet', '/testnet'));
    await expect(new Promise((resolve, reject) => unknown.once('open', resolve).once('error', reject))).rejects.toThrow(/404/);
  });
});

describe('websocket logsSubscribe on the live simulator', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, seed: 'ws-live', pools: 8, historySeconds: 30, slotMs: 100, midpriceUpdatesPerSecond: 12 });
  });

  afterAll(async () => {
    await sim.stop();
  });

  it('web3.js onLogs (confirmed) is woken for each new Hadron transaction as slots are produced, once confirmed', async () => {
    const connection = new Connection(sim.urls[CLUSTER], { commitment: 'confirmed' });
    const market = sim.market(CLUSTER);
    const received: Received[] = [];
    const id = listen(connection, market, HADRON_PROGRAM_V2, received);
    await waitFor('the subscription', () => sim.websocketSubscriptions(CLUSTER) === 1);
    await waitFor('live notifications', () => new Set(received.map((r) => r.slot)).size >= 4, 20_000);
    await connection.removeOnLogsListener(id);

    // Every slot but the last one seen is complete: compare it with the ledger exactly.
    const slots = [...new Set(received.map((r) => r.slot))];
    const [first, last] = [slots[0], slots[slots.length - 1]];
    const complete = received.filter((r) => r.slot < last).map(({ headOnArrival: _h, ...n }) => n);
    expect(complete).toEqual(expectedNotifications(market, HADRON_PROGRAM_V2, first - 1, last - 1));
    // `confirmed` trails the newest slot by one on a live cluster: never sent for the head itself.
    for (const r of received) expect(r.headOnArrival).toBeGreaterThan(r.slot);
    expect(new Set(received.map((r) => r.signature)).size).toBe(received.length);
  });
});
