import {
  decodeConfigAccount,
  decodeFeeConfigAccount,
  decodeFeeSplit,
  decodeOracleAccount,
  derivePoolAddresses,
  findProgramAddress,
  HADRON_PROGRAM_V1,
  HADRON_PROGRAM_V2,
  poolStateName,
  utf8Seed,
} from '@hadron/domain';
import { decodeContextOf, decodeTransaction, type DecodeContext, type KnownPool, type RpcTransactionResult, type TransactionFacts } from '../../apps/indexer/src/decode';
import {
  decodeMetadata,
  METAPLEX_PROGRAM,
  SIM_ONLY_SWAP_FIELDS,
  startSimulator,
  type GroundTruth,
  type RunningSimulator,
  type SimCluster,
  type SwapFact,
} from '../../apps/simulator/src';

/**
 * ROUND TRIP (simulator → indexer decoder). It lives in test/ because apps may not import each
 * other (.dependency-cruiser.js); it is the simulator's acceptance test. Read the simulated cluster only through JSON-RPC, exactly as the indexer does
 * (discover pools with getProgramAccounts, page getSignaturesForAddress, batch getTransaction),
 * decode with apps/indexer/src/decode, and recover the ground truth exactly — every swap to the
 * atom, every oracle update, every vault balance change, fee splits, pool states, token metadata.
 */

const HISTORY_END = 1_750_000_000_000;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'round-trip', pools: 8, historySeconds: 420, historyEndTimeMs: HISTORY_END, live: false });
});

afterAll(async () => {
  await sim.stop();
});

// ---- an indexer's reads, over HTTP -----------------------------------------------------------

interface RpcReply {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A JSON-RPC batch; with `retry`, any failed request (fault) is sent again until it answers. */
async function batch(url: string, calls: { method: string; params: unknown[] }[], retry = false): Promise<unknown[]> {
  const out: unknown[] = new Array(calls.length);
  let pending = calls.map((c, i) => ({ ...c, i }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 50) throw new Error('RPC kept failing');
    const body = JSON.stringify(pending.map((c) => ({ jsonrpc: '2.0', id: c.i, method: c.method, params: c.params })));
    let replies: RpcReply[];
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(500) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      replies = JSON.parse(await res.text());
    } catch (e) {
      if (!retry) throw e;
      continue;
    }
    const failed: typeof pending = [];
    for (const c of pending) {
      const reply = replies.find((r) => r.id === c.i)!;
      if (reply.error) throw new Error(`${c.method}: ${reply.error.message}`);
      // A signature we were told about must exist: null means "not yet", ask again.
      if (retry && reply.result === null && c.method === 'getTransaction') failed.push(c);
      else out[c.i] = reply.result;
    }
    pending = failed;
  }
  return out;
}

const call = async (url: string, method: string, params: unknown[], retry = false) => (await batch(url, [{ method, params }], retry))[0];

interface Discovered {
  ctx: DecodeContext;
  pools: Map<string, KnownPool & { config: ReturnType<typeof decodeConfigAccount>; feeConfig: string }>;
}

async function discoverPools(url: string, retry = false): Promise<Discovered> {
  const pools: Discovered['pools'] = new Map();
  for (const [program, size] of [
    [HADRON_PROGRAM_V1, 248],
    [HADRON_PROGRAM_V2, 724],
  ] as const) {
    const accounts = (await call(url, 'getProgramAccounts', [program, { encoding: 'base64', filters: [{ dataSize: size }] }], retry)) as { pubkey: string; account: { data: [string, string] } }[];
    for (const { pubkey, account } of accounts) {
      const config = decodeConfigAccount(Buffer.from(account.data[0], 'base64'));
      const pdas = derivePoolAddresses(program, BigInt(config.seed), config.mint_x, config.mint_y, config.token_program_x, config.token_program_y);
      expect(pdas.config.address).toBe(pubkey);
      const feeConfig = config.has_pool_fee ? pdas.pool_fee_config.address : findProgramAddress([utf8Seed('fee_config')], program).address;
      pools.set(pubkey, {
        programId: program,
        version: config.version,
        mintX: config.mint_x,
        mintY: config.mint_y,
        vaultX: pdas.vault_x.address,
        vaultY: pdas.vault_y.address,
        oracle: pdas.midprice_oracle.address,
        config,
        feeConfig,
      });
    }
  }
  return { ctx: decodeContextOf(pools), pools };
}

/** Every signature of both programs, newest first, paged with `before` (1000 per page). */
async function allSignatures(url: string, retry = false): Promise<{ signature: string; slot: number; err: unknown }[]> {
  const seen = new Map<string, { signature: string; slot: number; err: unknown }>();
  for (const program of [HADRON_PROGRAM_V1, HADRON_PROGRAM_V2]) {
    let before: string | undefined;
    for (;;) {
      const page = (await call(url, 'getSignaturesForAddress', [program, { limit: 1000, before }], retry)) as { signature: string; slot: number; err: unknown }[];
      if (page.length === 0) break;
      for (const s of page) seen.set(s.signature, s);
      before = page[page.length - 1].signature;
    }
  }
  return [...seen.values()];
}

async function decodeAll(url: string, ctx: DecodeContext, signatures: string[], retry = false): Promise<TransactionFacts[]> {
  const facts: TransactionFacts[] = [];
  for (let i = 0; i < signatures.length; i += 100) {
    const chunk = signatures.slice(i, i + 100);
    const results = await batch(
      url,
      chunk.map((s) => ({ method: 'getTransaction', params: [s, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }] })),
      retry,
    );
    for (const r of results) facts.push(decodeTransaction(r as RpcTransactionResult, ctx));
  }
  return facts;
}

// ---- expectations derived from the ground truth ------------------------------------------------

function expectedSwap(s: SwapFact): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...s };
  for (const f of SIM_ONLY_SWAP_FIELDS) delete copy[f];
  return copy;
}

const byId = <T extends { event_id: string }>(xs: T[]) => [...xs].sort((a, b) => (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0));

async function roundTrip(cluster: SimCluster, retry: boolean) {
  const url = sim.urls[cluster];
  const gt: GroundTruth = sim.groundTruth(cluster);
  const discovered = await discoverPools(url, retry);
  const signatures = await allSignatures(url, retry);
  const facts = await decodeAll(
    url,
    discovered.ctx,
    signatures.map((s) => s.signature),
    retry,
  );
  return { url, gt, discovered, signatures, facts };
}

describe.each(['mainnet-beta', 'devnet'] as const)('round trip on %s', (cluster) => {
  let run: Awaited<ReturnType<typeof roundTrip>>;
  beforeAll(async () => {
    run = await roundTrip(cluster, false);
  });

  it('discovers every pool, with its PDAs, tokens (decimals, Metaplex name/symbol) and current state', async () => {
    const { gt, discovered, url } = run;
    expect([...discovered.pools.keys()].sort()).toEqual(gt.pools.map((p) => p.config).sort());
    for (const pool of gt.pools) {
      const found = discovered.pools.get(pool.config)!;
      expect({ vaultX: found.vaultX, vaultY: found.vaultY, oracle: found.oracle, feeConfig: found.feeConfig, seed: found.config.seed, authority: found.config.authority }).toEqual({
        vaultX: pool.vault_x,
        vaultY: pool.vault_y,
        oracle: pool.oracle,
        feeConfig: pool.fee_config,
        seed: pool.seed,
        authority: pool.authority,
      });
      expect(poolStateName(found.config.state)).toBe(pool.state_history[pool.state_history.length - 1].state_name);
    }
    for (const token of gt.tokens) {
      const metadata = findProgramAddress([utf8Seed('metadata'), { pubkey: METAPLEX_PROGRAM }, { pubkey: token.mint }], METAPLEX_PROGRAM).address;
      const reply = (await call(url, 'getMultipleAccounts', [[token.mint, metadata], { encoding: 'base64' }])) as { value: ({ data: [string] } | null)[] };
      const [mint, meta] = reply.value;
      expect(Buffer.from(mint!.data[0], 'base64')[44]).toBe(token.decimals);
      if (token.metadata === null) expect(meta).toBeNull();
      else expect(decodeMetadata(Buffer.from(meta!.data[0], 'base64'))).toEqual({ mint: token.mint, name: token.name, symbol: token.symbol, uri: token.uri });
    }
  });

  it('decodes every transaction without a problem, and nothing from failed ones', () => {
    const { facts, gt, signatures } = run;
    expect(facts.flatMap((f) => f.problems)).toEqual([]);
    const failed = new Set(gt.failed_transactions.map((f) => f.signature));
    expect(signatures.filter((s) => s.err !== null).map((s) => s.signature).sort()).toEqual([...failed].sort());
    for (const f of facts) if (failed.has(f.signature)) expect(f.events).toEqual([]);
  });

  it('recovers every swap exactly (ids, accounts, amounts to the atom, vault balances after)', () => {
    const decoded = run.facts.flatMap((f) => f.events.filter((e) => e.kind === 'swap'));
    expect(decoded.length).toBe(run.gt.swaps.length);
    expect(byId(decoded)).toEqual(byId(run.gt.swaps).map(expectedSwap));
  });

  it('recovers every oracle update exactly (null where the instruction left a field)', () => {
    const decoded = run.facts.flatMap((f) => f.events.filter((e) => e.kind === 'oracle_update'));
    expect(byId(decoded)).toEqual(byId(run.gt.oracle_updates).map(({ tx_index: _t, ...rest }) => rest));
  });

  it('recovers every vault balance change (swaps, deposits, withdrawals)', () => {
    const decoded = run.facts
      .flatMap((f) => f.vault_balances)
      .map((v) => ({ signature: v.signature, pool: v.pool_config, x: v.vault_x_after, y: v.vault_y_after, slot: v.slot, block_time: v.block_time }));
    const expected = run.gt.vault_balance_changes.map((v) => ({ signature: v.signature, pool: v.pool_config, x: v.vault_x_after, y: v.vault_y_after, slot: v.slot, block_time: v.block_time }));
    const key = (v: { signature: string; pool: string }) => `${v.signature}/${v.pool}`;
    const sort = <T extends { signature: string; pool: string }>(xs: T[]) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect(sort(decoded)).toEqual(sort(expected));
  });

  it('the midprice and spread in effect at each swap follow from the decoded oracle updates in signature order', () => {
    const { facts, signatures, gt } = run;
    // getSignaturesForAddress lists newest first; reversed, it is execution order.
    const order = new Map([...signatures].reverse().map((s, i) => [s.signature, i]));
    const events = facts.flatMap((f) => f.events).sort((a, b) => order.get(a.signature)! - order.get(b.signature)! || a.event_id.localeCompare(b.event_id));
    const state = new Map<string, { mid: string | null; spread: string | null }>();
    const expected = new Map(gt.swaps.map((s) => [s.event_id, s]));
    let checked = 0;
    for (const e of events) {
      if (e.kind === 'oracle_update') {
        const s = state.get(e.pool_config_via_registry!) ?? { mid: null, spread: null };
        state.set(e.pool_config_via_registry!, { mid: e.midprice_q32 ?? s.mid, spread: e.spread_factor_q32 ?? s.spread });
        continue;
      }
      const s = state.get(e.pool_config);
      if (!s?.mid || !s.spread) continue; // before the first update of each: the account read at discovery tells
      const truth = expected.get(e.event_id)!;
      expect({ id: e.event_id, mid: s.mid, spread: s.spread }).toEqual({ id: e.event_id, mid: truth.midprice_q32, spread: truth.spread_factor_q32 });
      checked++;
    }
    expect(checked).toBeGreaterThan(gt.swaps.length / 2);
  });

  it('fee configs, oracles and configs read over RPC equal the last change in the ground truth', async () => {
    const { gt, url, discovered } = run;
    for (const pool of gt.pools) {
      const reply = (await call(url, 'getMultipleAccounts', [[pool.oracle, pool.fee_config], { encoding: 'base64' }])) as { value: { data: [string] }[] };
      const [oracle, feeConfig] = reply.value;
      const lastUpdate = gt.oracle_updates.filter((u) => u.oracle === pool.oracle).pop();
      if (lastUpdate) expect(decodeOracleAccount(Buffer.from(oracle.data[0], 'base64')).sequence).toBe(lastUpdate.sequence);
      const fee = Buffer.from(feeConfig.data[0], 'base64');
      const lastSplit = gt.fee_split_changes.filter((c) => c.pool_config === pool.config).pop();
      if (pool.has_pool_fee) {
        expect(decodeFeeSplit(fee)).toEqual(lastSplit!.recipients);
        expect(decodeFeeConfigAccount(fee).fee_ppm).toBe(lastSplit!.fee_ppm);
      } else {
        expect(decodeFeeSplit(fee)).toEqual([]);
        expect(gt.global_fee_configs.map((g) => g.address)).toContain(discovered.pools.get(pool.config)!.feeConfig);
      }
    }
  });
});

describe('round trip through faults', () => {
  it('a client that retries on 429, 5xx, timeouts, malformed bodies and missing transactions recovers the same facts', async () => {
    const clean = await roundTrip('devnet', false);
    sim.setFaults('devnet', { rate: 0.25, kinds: ['429', '5xx', 'timeout', 'malformed', 'missing-tx'], hangMs: 1_000, missingTxRate: 0.05, missingTxRequests: 2, seed: 'round-trip' });
    try {
      const faulty = await roundTrip('devnet', true);
      expect(byId(faulty.facts.flatMap((f) => f.events))).toEqual(byId(clean.facts.flatMap((f) => f.events)));
      expect(faulty.signatures.length).toBe(clean.signatures.length);
      const res = await fetch(`${sim.urls.devnet}/faults`);
      const { injected } = (await res.json()) as { injected: Record<string, number> };
      for (const kind of ['429', '5xx', 'timeout', 'malformed', 'missing-tx']) expect(injected[kind]).toBeGreaterThan(0);
    } finally {
      sim.setFaults('devnet', { rate: 0 });
    }
  });
});
