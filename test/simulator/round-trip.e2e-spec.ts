import {
  decodeBase58,
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
import {
  decodeContextOf,
  decodeTransaction,
  type DecodeContext,
  type InstructionLocation,
  type KnownPool,
  type RpcTransactionResult,
  type TransactionFacts,
} from '../../apps/indexer/src/decode';
import { camelCased, type CamelCased } from '../../apps/indexer/src/decode/testing/camel-cased';
import { PoolReader } from '../../apps/indexer/src/discovery/pool-reader';
import { SolanaRpc } from '../../apps/indexer/src/source/solana-rpc';
import { TokenList } from '../../apps/indexer/src/tokens/token-list';
import {
  SIM_ONLY_SWAP_FIELDS,
  startSimulator,
  type GroundTruth,
  type RunningSimulator,
  type SimCluster,
  type SwapFact,
  type OracleUpdateFact,
} from '../../apps/simulator/src';

/**
 * ROUND TRIP (simulator → indexer decoder). It lives in test/ because apps may not import each
 * other (.dependency-cruiser.js); it is the simulator's acceptance test. Read the simulated cluster
 * only through JSON-RPC, exactly as the indexer does (discover pools with getProgramAccounts, page
 * getSignaturesForAddress, batch getTransaction, read accounts as slots are produced), decode with
 * apps/indexer/src/decode, and recover every kind of fact in the ground truth exactly: every swap
 * to the atom (per instruction too), every oracle update, every vault balance change, every deposit
 * and withdrawal, every pool state and fee split change with the split in effect at each swap,
 * global fee configs, token metadata.
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

/**
 * A JSON-RPC batch; with `retry`, any failed request (fault) is sent again until it answers —
 * quickly: an injected timeout hangs 1 s. Without faults a slow answer (a busy machine) is waited for.
 */
async function batch(url: string, calls: { method: string; params: unknown[] }[], retry = false): Promise<unknown[]> {
  const out: unknown[] = new Array(calls.length);
  let pending = calls.map((c, i) => ({ ...c, i }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 50) throw new Error('RPC kept failing');
    const body = JSON.stringify(pending.map((c) => ({ jsonrpc: '2.0', id: c.i, method: c.method, params: c.params })));
    let replies: RpcReply[];
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(retry ? 500 : 15_000),
      });
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
    const accounts = (await call(url, 'getProgramAccounts', [program, { encoding: 'base64', filters: [{ dataSize: size }] }], retry)) as {
      pubkey: string;
      account: { data: [string, string] };
    }[];
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
      const page = (await call(url, 'getSignaturesForAddress', [program, { limit: 1000, before }], retry)) as {
        signature: string;
        slot: number;
        err: unknown;
      }[];
      if (page.length === 0) break;
      for (const s of page) seen.set(s.signature, s);
      before = page[page.length - 1].signature;
    }
  }
  return [...seen.values()];
}

async function decodeAll(
  url: string,
  ctx: DecodeContext,
  signatures: string[],
  retry = false,
): Promise<{ facts: TransactionFacts[]; results: Map<string, RpcTransactionResult> }> {
  const facts: TransactionFacts[] = [];
  const results = new Map<string, RpcTransactionResult>();
  for (let i = 0; i < signatures.length; i += 100) {
    const chunk = signatures.slice(i, i + 100);
    const replies = await batch(
      url,
      chunk.map((s) => ({ method: 'getTransaction', params: [s, { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' }] })),
      retry,
    );
    for (const r of replies as RpcTransactionResult[]) {
      facts.push(decodeTransaction(r, ctx));
      results.set(r.transaction.signatures[0], r);
    }
  }
  return { facts, results };
}

/** The full key list of a transaction (static ++ loaded writable ++ loaded readonly). */
function keysOf(r: RpcTransactionResult): string[] {
  const loaded = r.meta?.loadedAddresses;
  return [...r.transaction.message.accountKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
}

/** A token account's amount before the transaction (a missing entry is an account it created: 0). */
function preAmount(r: RpcTransactionResult, address: string): bigint {
  const i = keysOf(r).indexOf(address);
  const b = r.meta?.preTokenBalances?.find((x) => x.accountIndex === i);
  return b ? BigInt(b.uiTokenAmount.amount) : 0n;
}

/** Whether the transaction takes `address` writable (message header + loaded writable addresses). */
function writes(r: RpcTransactionResult, address: string): boolean {
  const message = r.transaction.message as RpcTransactionResult['transaction']['message'] & {
    header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  };
  const { numRequiredSignatures: signed, numReadonlySignedAccounts: roSigned, numReadonlyUnsignedAccounts: roUnsigned } = message.header;
  const staticKeys = message.accountKeys;
  const i = staticKeys.indexOf(address);
  if (i >= 0) return i < signed - roSigned || (i >= signed && i < staticKeys.length - roUnsigned);
  return r.meta?.loadedAddresses?.writable.includes(address) ?? false;
}

/** Chain position of an event inside its transaction. */
const inTxOrder = (a: { instructionLocation: InstructionLocation }, b: typeof a) =>
  a.instructionLocation.topLevelIndex - b.instructionLocation.topLevelIndex ||
  (a.instructionLocation.innerIndex ?? -1) - (b.instructionLocation.innerIndex ?? -1);

// ---- expectations derived from the ground truth ------------------------------------------------
// The ground truth names fields in snake_case (the golden vectors' names); the decoder's facts are
// camelCase: an expected fact is the ground truth record without its simulator-only fields, keys converted.

function expectedSwap(s: SwapFact): CamelCased<Omit<SwapFact, (typeof SIM_ONLY_SWAP_FIELDS)[number]>> {
  const copy: Record<string, unknown> = { ...s };
  for (const f of SIM_ONLY_SWAP_FIELDS) delete copy[f];
  return camelCased(copy as Omit<SwapFact, (typeof SIM_ONLY_SWAP_FIELDS)[number]>);
}

function expectedOracleUpdate({ tx_index: _t, ...rest }: OracleUpdateFact): CamelCased<Omit<OracleUpdateFact, 'tx_index'>> {
  return camelCased(rest);
}

const byId = <T extends { eventId: string }>(xs: T[]) => [...xs].sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));

async function roundTrip(cluster: SimCluster, retry: boolean, on: RunningSimulator = sim) {
  const url = on.urls[cluster];
  const gt: GroundTruth = on.groundTruth(cluster);
  const discovered = await discoverPools(url, retry);
  const signatures = await allSignatures(url, retry);
  const { facts, results } = await decodeAll(
    url,
    discovered.ctx,
    signatures.map((s) => s.signature),
    retry,
  );
  return { url, gt, discovered, signatures, facts, results };
}

describe.each(['mainnet-beta', 'devnet'] as const)('round trip on %s', (cluster) => {
  let run: Awaited<ReturnType<typeof roundTrip>>;
  beforeAll(async () => {
    run = await roundTrip(cluster, false);
  });

  it('discovers every pool, with its PDAs, tokens (decimals, name/symbol from every metadata source) and current state', async () => {
    const { gt, discovered, url } = run;
    expect([...discovered.pools.keys()].sort()).toEqual(gt.pools.map((p) => p.config).sort());
    for (const pool of gt.pools) {
      const found = discovered.pools.get(pool.config)!;
      expect({
        vaultX: found.vaultX,
        vaultY: found.vaultY,
        oracle: found.oracle,
        feeConfig: found.feeConfig,
        seed: found.config.seed,
        authority: found.config.authority,
      }).toEqual({
        vaultX: pool.vault_x,
        vaultY: pool.vault_y,
        oracle: pool.oracle,
        feeConfig: pool.fee_config,
        seed: pool.seed,
        authority: pool.authority,
      });
      expect(poolStateName(found.config.state)).toBe(pool.state_history[pool.state_history.length - 1].state_name);
    }
    // Tokens as the indexer reads them over JSON-RPC (every metadata source the simulator serves:
    // Metaplex exact and NUL-padded, Token-2022 in the mint, behind a MetadataPointer, none).
    const rpc = new SolanaRpc({
      url,
      commitment: 'confirmed',
      timeoutMs: 5_000,
      rps: 100_000,
      concurrency: 4,
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 200 },
      txBatchSize: 50,
    });
    const { tokens, unreadable } = await new PoolReader(rpc, new TokenList([])).tokenMetadata(gt.tokens.map((t) => t.mint));
    expect(unreadable).toEqual(new Map());
    expect(new Set(gt.tokens.map((t) => t.metadata_source))).toEqual(new Set(['metaplex', 'token-2022', 'pointer', 'none']));
    for (const t of gt.tokens) {
      expect({ source: t.metadata_source, ...tokens.get(t.mint) }).toEqual({
        source: t.metadata_source,
        mint: t.mint,
        symbol: t.symbol,
        name: t.name,
        decimals: t.decimals,
        icon: '',
      });
    }
  });

  it('decodes every transaction without a problem, and nothing from failed ones', () => {
    const { facts, gt, signatures } = run;
    expect(facts.flatMap((f) => f.problems)).toEqual([]);
    const failed = new Set(gt.failed_transactions.map((f) => f.signature));
    expect(
      signatures
        .filter((s) => s.err !== null)
        .map((s) => s.signature)
        .sort(),
    ).toEqual([...failed].sort());
    for (const f of facts) if (failed.has(f.signature)) expect(f.events).toEqual([]);
  });

  it('recovers every swap exactly (ids, accounts, amounts to the atom, vault balances after)', () => {
    const decoded = run.facts.flatMap((f) => f.events.filter((e) => e.kind === 'swap'));
    expect(decoded.length).toBe(run.gt.swaps.length);
    expect(byId(decoded)).toEqual(byId(run.gt.swaps.map(expectedSwap)));
  });

  it('recovers every oracle update exactly (null where the instruction left a field)', () => {
    const decoded = run.facts.flatMap((f) => f.events.filter((e) => e.kind === 'oracle_update'));
    expect(byId(decoded)).toEqual(byId(run.gt.oracle_updates.map(expectedOracleUpdate)));
  });

  it('recovers every vault balance change (swaps, deposits, withdrawals)', () => {
    const decoded = run.facts
      .flatMap((f) => f.vaultBalances)
      .map((v) => ({ signature: v.signature, pool: v.poolConfig, x: v.vaultXAfter, y: v.vaultYAfter, slot: v.slot, blockTime: v.blockTime }));
    const expected = run.gt.vault_balance_changes.map((v) => ({
      signature: v.signature,
      pool: v.pool_config,
      x: v.vault_x_after,
      y: v.vault_y_after,
      slot: v.slot,
      blockTime: v.block_time,
    }));
    const key = (v: { signature: string; pool: string }) => `${v.signature}/${v.pool}`;
    const sort = <T extends { signature: string; pool: string }>(xs: T[]) => [...xs].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect(sort(decoded)).toEqual(sort(expected));
  });

  it("chains every pool's vault balances: each changing transaction starts where the previous one left them", () => {
    const { facts, results, signatures } = run;
    const order = new Map([...signatures].reverse().map((s, i) => [s.signature, i]));
    const last = new Map<string, { x: string | null; y: string | null }>();
    let chained = 0;
    for (const v of facts.flatMap((f) => f.vaultBalances).sort((a, b) => order.get(a.signature)! - order.get(b.signature)!)) {
      const r = results.get(v.signature)!;
      const before = last.get(v.poolConfig);
      if (before) {
        expect({ tx: v.signature, x: preAmount(r, v.vaultX).toString(), y: preAmount(r, v.vaultY).toString() }).toEqual({
          tx: v.signature,
          x: before.x,
          y: before.y,
        });
        chained++;
      }
      last.set(v.poolConfig, { x: v.vaultXAfter, y: v.vaultYAfter });
    }
    expect(chained).toBeGreaterThan(run.gt.swaps.length / 2);
  });

  it("recovers every deposit and withdrawal to the atom: its arguments and its transaction's vault deltas", () => {
    const { facts, results, gt, discovered } = run;
    expect(new Set(gt.liquidity.map((l) => l.kind))).toEqual(new Set(['deposit', 'withdraw']));
    // Every Deposit / Withdraw [C] (tags 1 / 2: amount_x u64, amount_y u64, expiration i64) on the wire is in the ground truth, and back.
    const onWire: { signature: string; kind: string; pool: string; x: bigint; y: bigint }[] = [];
    for (const [signature, r] of results) {
      if (r.meta?.err !== null) continue;
      const keys = keysOf(r);
      for (const ix of r.transaction.message.instructions) {
        if (keys[ix.programIdIndex] !== HADRON_PROGRAM_V1 && keys[ix.programIdIndex] !== HADRON_PROGRAM_V2) continue;
        const data = decodeBase58(ix.data);
        if (data[0] !== 1 && data[0] !== 2) continue;
        const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
        // Accounts [C]: authority, vault_x, vault_y, authority_ata_x, authority_ata_y, config, token programs.
        onWire.push({
          signature,
          kind: data[0] === 1 ? 'deposit' : 'withdraw',
          pool: keys[ix.accounts[5]],
          x: view.getBigUint64(1, true),
          y: view.getBigUint64(9, true),
        });
      }
    }
    const key = (l: { signature: string; pool: string }) => `${l.signature}/${l.pool}`;
    expect(onWire.map((l) => ({ ...l, x: l.x.toString(), y: l.y.toString() })).sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
      gt.liquidity
        .map((l) => ({ signature: l.signature, kind: l.kind, pool: l.pool_config, x: l.amount_x, y: l.amount_y }))
        .sort((a, b) => key(a).localeCompare(key(b))),
    );
    for (const l of gt.liquidity) {
      const r = results.get(l.signature)!;
      const pool = discovered.pools.get(l.pool_config)!;
      const v = facts.find((f) => f.signature === l.signature)!.vaultBalances.find((f) => f.poolConfig === l.pool_config)!;
      const sign = l.kind === 'deposit' ? 1n : -1n;
      const delta = (after: string | null, vault: string) => (after === null ? 0n : BigInt(after) - preAmount(r, vault));
      expect({ id: l.event_id, x: delta(v.vaultXAfter, pool.vaultX), y: delta(v.vaultYAfter, pool.vaultY) }).toEqual({
        id: l.event_id,
        x: sign * BigInt(l.amount_x),
        y: sign * BigInt(l.amount_y),
      });
      expect([v.vaultXAfter, v.vaultYAfter]).toEqual([l.vault_x_after, l.vault_y_after]);
    }
  });

  it("each swap moves its pool's vaults by its own decoded amounts, instruction after instruction", () => {
    const { facts, results, gt } = run;
    const truth = new Map(gt.swaps.map((s) => [s.event_id, s]));
    let multi = 0;
    for (const f of facts) {
      const swaps = f.events.filter((e): e is Extract<typeof e, { kind: 'swap' }> => e.kind === 'swap').sort(inTxOrder);
      const r = results.get(f.signature)!;
      const vaults = new Map<string, { x: bigint; y: bigint }>();
      for (const s of swaps) {
        const v = vaults.get(s.poolConfig) ?? { x: preAmount(r, s.vaultX), y: preAmount(r, s.vaultY) };
        const [toVault, out] = [BigInt(s.amountInToVault), BigInt(s.amountOut)];
        const after = s.side === 'sell' ? { x: v.x + toVault, y: v.y - out } : { x: v.x - out, y: v.y + toVault };
        vaults.set(s.poolConfig, after);
        const t = truth.get(s.eventId)!;
        expect({ id: s.eventId, x: after.x.toString(), y: after.y.toString() }).toEqual({
          id: s.eventId,
          x: t.vault_x_after_instruction,
          y: t.vault_y_after_instruction,
        });
        // [C] the user pays amount_in: the fee, in the input mint, plus what reaches the vault.
        expect(BigInt(s.protocolFeeRaw) + toVault).toBe(BigInt(s.amountIn));
      }
      if (swaps.length > 1) multi++;
      for (const [pool, v] of vaults) {
        const last = swaps.filter((s) => s.poolConfig === pool).pop()!;
        expect([v.x.toString(), v.y.toString()]).toEqual([last.vaultXAfter, last.vaultYAfter]);
      }
    }
    expect(multi).toBeGreaterThan(0);
  });

  it("the global fee configs read over RPC are the ground truth's (rate and recipient)", async () => {
    const { gt, url } = run;
    const reply = (await call(url, 'getMultipleAccounts', [gt.global_fee_configs.map((g) => g.address), { encoding: 'base64' }])) as {
      value: { data: [string] }[];
    };
    expect(
      reply.value.map((a) => decodeFeeConfigAccount(Buffer.from(a.data[0], 'base64'))).map((f) => ({ fee_ppm: f.fee_ppm, fee_recipient: f.fee_recipient })),
    ).toEqual(gt.global_fee_configs.map((g) => ({ fee_ppm: g.fee_ppm, fee_recipient: g.fee_recipient })));
  });

  it('the midprice and spread in effect at each swap follow from the decoded oracle updates in signature order', () => {
    const { facts, signatures, gt } = run;
    // getSignaturesForAddress lists newest first; reversed, it is execution order.
    const order = new Map([...signatures].reverse().map((s, i) => [s.signature, i]));
    const events = facts.flatMap((f) => f.events).sort((a, b) => order.get(a.signature)! - order.get(b.signature)! || inTxOrder(a, b));
    const state = new Map<string, { mid: string | null; spread: string | null }>();
    const expected = new Map(gt.swaps.map((s) => [s.event_id, s]));
    let checked = 0;
    for (const e of events) {
      if (e.kind === 'oracle_update') {
        const s = state.get(e.poolConfigViaRegistry!) ?? { mid: null, spread: null };
        state.set(e.poolConfigViaRegistry!, { mid: e.midpriceQ32 ?? s.mid, spread: e.spreadFactorQ32 ?? s.spread });
        continue;
      }
      const s = state.get(e.poolConfig);
      if (!s?.mid || !s.spread) continue; // before the first update of each: the account read at discovery tells
      const truth = expected.get(e.eventId)!;
      expect({ id: e.eventId, mid: s.mid, spread: s.spread }).toEqual({ id: e.eventId, mid: truth.midprice_q32, spread: truth.spread_factor_q32 });
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
    sim.setFaults('devnet', {
      rate: 0.25,
      kinds: ['429', '5xx', 'timeout', 'malformed', 'missing-tx'],
      hangMs: 1_000,
      missingTxRate: 0.05,
      missingTxRequests: 2,
      seed: 'round-trip',
    });
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

/*
 * Pool states and fee splits live in accounts; a node serves an account's current state only, so
 * they are observed the way a live indexer does: read after each slot. The lifecycle (pause,
 * reject swaps, close), the split changes and the late pool are scheduled after a short history,
 * so every change happens in a slot produced while the test watches.
 */
describe('round trip, observed slot by slot: every pool state and fee split, and the split in effect at each swap', () => {
  const CLUSTER = 'mainnet-beta' as const;
  let stepped: RunningSimulator;
  /** Per pool: the state each time it was seen to change (and first seen). */
  const states = new Map<string, { slot: number; state: number }[]>();
  /** Per fee config: {ppm, split} each time it was seen to change (and first seen). */
  const feeConfigs = new Map<string, { slot: number; feePpm: number; split: { recipient: string; ppm: number }[] }[]>();
  const feeConfigOf = new Map<string, string>();
  let run: Awaited<ReturnType<typeof roundTrip>>;

  beforeAll(async () => {
    stepped = await startSimulator({
      port: 0,
      seed: 'round-trip-stepped',
      pools: 8,
      historySeconds: 20,
      historyEndTimeMs: HISTORY_END,
      live: false,
      clusters: { [CLUSTER]: { scheduleSeconds: 240 } },
    });
    const url = stepped.urls[CLUSTER];
    const endSlot = stepped.groundTruth(CLUSTER).first_slot + Math.ceil(240_000 / 400) + 16;
    const observe = async () => {
      const [v1, v2] = (await batch(url, [
        { method: 'getProgramAccounts', params: [HADRON_PROGRAM_V1, { encoding: 'base64', filters: [{ dataSize: 248 }], withContext: true }] },
        { method: 'getProgramAccounts', params: [HADRON_PROGRAM_V2, { encoding: 'base64', filters: [{ dataSize: 724 }], withContext: true }] },
      ])) as { context: { slot: number }; value: { pubkey: string; account: { data: [string, string] } }[] }[];
      const slot = v1.context.slot;
      for (const [program, list] of [
        [HADRON_PROGRAM_V1, v1.value],
        [HADRON_PROGRAM_V2, v2.value],
      ] as const) {
        for (const { pubkey, account } of list) {
          const config = decodeConfigAccount(Buffer.from(account.data[0], 'base64'));
          const seen = states.get(pubkey) ?? [];
          if (seen.length === 0 || seen[seen.length - 1].state !== config.state) states.set(pubkey, [...seen, { slot, state: config.state }]);
          if (!feeConfigOf.has(pubkey)) {
            const pdas = derivePoolAddresses(program, BigInt(config.seed), config.mint_x, config.mint_y, config.token_program_x, config.token_program_y);
            feeConfigOf.set(pubkey, config.has_pool_fee ? pdas.pool_fee_config.address : findProgramAddress([utf8Seed('fee_config')], program).address);
          }
        }
      }
      const addresses = [...new Set(feeConfigOf.values())];
      const reply = (await call(url, 'getMultipleAccounts', [addresses, { encoding: 'base64', minContextSlot: slot }])) as {
        context: { slot: number };
        value: { data: [string] }[];
      };
      expect(reply.context.slot).toBe(slot);
      addresses.forEach((address, i) => {
        const data = Buffer.from(reply.value[i].data[0], 'base64');
        const now = { slot, feePpm: decodeFeeConfigAccount(data).fee_ppm, split: decodeFeeSplit(data) };
        const seen = feeConfigs.get(address) ?? [];
        const prev = seen[seen.length - 1];
        if (!prev || prev.feePpm !== now.feePpm || JSON.stringify(prev.split) !== JSON.stringify(now.split)) feeConfigs.set(address, [...seen, now]);
      });
      return slot;
    };
    for (let slot = await observe(); slot < endSlot; slot = await observe()) stepped.advance(CLUSTER, 1);
    run = await roundTrip(CLUSTER, false, stepped);
  });

  afterAll(async () => {
    await stepped.stop();
  });

  /** The one transaction of `slot` that takes `address` writable, and its position in the block. */
  async function writerAt(slot: number, address: string): Promise<number> {
    const block = (await call(run.url, 'getBlock', [
      slot,
      { encoding: 'json', maxSupportedTransactionVersion: 0, transactionDetails: 'full', rewards: false },
    ])) as { transactions: RpcTransactionResult[] };
    const positions = block.transactions.flatMap((t, i) => (t.meta?.err === null && writes(t, address) ? [i] : []));
    expect(positions).toHaveLength(1);
    return positions[0];
  }

  /** Position of a transaction in its block. */
  async function positionOf(slot: number, signature: string): Promise<number> {
    const block = (await call(run.url, 'getBlock', [slot, { transactionDetails: 'signatures', rewards: false }])) as { signatures: string[] };
    return block.signatures.indexOf(signature);
  }

  it('sees every pool state the ground truth went through, each at its slot — Paused, RejectSwaps and Closed included', () => {
    const { gt } = run;
    expect([...states.keys()].sort()).toEqual(gt.pools.map((p) => p.config).sort());
    for (const pool of gt.pools) {
      const seen = states.get(pool.config)!;
      // First seen Initialized: at the end of the short history, or at its creation for the late pool.
      expect(seen[0].state).toBe(1);
      if (pool.created_signature !== null) expect(seen[0].slot).toBe(pool.created_slot);
      expect(seen.slice(1)).toEqual(pool.state_history.slice(1).map((c) => ({ slot: c.slot, state: c.state })));
    }
    const names = new Set([...states.values()].flatMap((seen) => seen.map((s) => poolStateName(s.state))));
    expect(names).toEqual(new Set(['Initialized', 'Paused', 'RejectSwaps', 'Closed']));
  });

  it('sees every fee split change (rate and recipients), each at its slot', () => {
    const { gt } = run;
    const changes = gt.fee_split_changes.filter(
      (c) => c.signature !== null && gt.pools.find((p) => p.config === c.pool_config)!.created_signature !== c.signature,
    );
    expect(changes.length).toBeGreaterThanOrEqual(4);
    for (const pool of gt.pools.filter((p) => p.has_pool_fee === 1)) {
      const seen = feeConfigs.get(feeConfigOf.get(pool.config)!)!;
      const truth = gt.fee_split_changes.filter((c) => c.pool_config === pool.config);
      expect(seen.map((s) => ({ feePpm: s.feePpm, split: s.split }))).toEqual(truth.map((c) => ({ feePpm: c.fee_ppm, split: c.recipients })));
      expect(seen.slice(1).map((s) => s.slot)).toEqual(truth.slice(1).map((c) => c.slot));
    }
  });

  it("each swap ran in an Initialized pool and carries the fee rate and split in effect (the admin transaction's place in its block decides)", async () => {
    const { gt, facts, discovered } = run;
    const truth = new Map(gt.swaps.map((s) => [s.event_id, s]));
    /** The value in effect at (slot, position): the last change before it; a change seen at slot s took effect at its writer's position. */
    const inEffect = async <T extends { slot: number }>(timeline: T[], address: string, slot: number, position: number): Promise<T> => {
      let current = timeline[0];
      for (const change of timeline.slice(1)) {
        if (change.slot < slot || (change.slot === slot && (await writerAt(slot, address)) < position)) current = change;
      }
      return current;
    };
    const swaps = facts.flatMap((f) => f.events.filter((e): e is Extract<typeof e, { kind: 'swap' }> => e.kind === 'swap'));
    expect(swaps.length).toBe(gt.swaps.length);
    let withSplit = 0;
    for (const s of swaps) {
      const position = await positionOf(s.slot, s.signature);
      expect({ id: s.eventId, state: (await inEffect(states.get(s.poolConfig)!, s.poolConfig, s.slot, position)).state }).toEqual({
        id: s.eventId,
        state: 1,
      });
      const feeConfig = discovered.pools.get(s.poolConfig)!.feeConfig;
      const fee = await inEffect(feeConfigs.get(feeConfig)!, feeConfig, s.slot, position);
      const t = truth.get(s.eventId)!;
      expect({ id: s.eventId, split: fee.split.length > 0 ? fee.split : null, ppm: fee.feePpm }).toEqual({
        id: s.eventId,
        split: t.fee_split,
        ppm: t.fee_ppm,
      });
      // [C] fee = floor(amount_in × fee_ppm / 1e6), in the input mint.
      expect(s.protocolFeeRaw).toBe(((BigInt(s.amountIn) * BigInt(fee.feePpm)) / 1_000_000n).toString());
      if (t.fee_split !== null) withSplit++;
    }
    // Swaps under more than one split generation of a pool were seen.
    expect(new Set(swaps.map((s) => JSON.stringify(truth.get(s.eventId)!.fee_split))).size).toBeGreaterThan(3);
    expect(withSplit).toBeGreaterThan(0);
  });

  it('decodes the stepped history as exactly as the generated one (swaps, oracle updates, vault changes)', () => {
    const { facts, gt } = run;
    expect(facts.flatMap((f) => f.problems)).toEqual([]);
    expect(byId(facts.flatMap((f) => f.events.filter((e) => e.kind === 'swap')))).toEqual(byId(gt.swaps.map(expectedSwap)));
    expect(byId(facts.flatMap((f) => f.events.filter((e) => e.kind === 'oracle_update')))).toEqual(byId(gt.oracle_updates.map(expectedOracleUpdate)));
    expect(facts.flatMap((f) => f.vaultBalances).length).toBe(gt.vault_balance_changes.length);
  });
});
