import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Cluster, HadronEvent } from '@hadron/contracts';
import { createLogger, openEventLog, parseEnv, type Storage } from '@hadron/platform';
import { eventLogMigrations } from '@hadron/platform/event-log/migrations';
import { createTestDatabase, type TestDatabase } from '@hadron/platform/testing/test-database';
import { indexerEnvSchema, indexerMigrations, type IndexerConfig, type RunningIndexer } from '../../apps/indexer/src/index';
import { startSimulator, tokenNamesAt, type GroundTruth, type RunningSimulator, type SimulatorOptions } from '../../apps/simulator/src';

/**
 * Shared by the indexer's end-to-end tests: a throwaway database with the indexer's tables and the
 * Postgres event log, the indexer's configuration pointed at a simulated cluster, and the
 * comparison of what landed in the event log with the simulator's ground truth.
 */

/** Where the simulated history ends: fixed, so every run generates the same chain. */
export const HISTORY_END = 1_750_000_000_000;
export const CLUSTERS = ['mainnet-beta', 'devnet'] as const;

/** What an indexer e2e file runs against; the indexer (and a proxy) are the file's to start. */
export interface SimulatedClusterFixture {
  sim: RunningSimulator;
  db: TestDatabase;
  indexer?: RunningIndexer;
  proxy?: RpcProxy;
}

/**
 * For all tests of a file: the simulated clusters with a fixed history end and no live slots (a
 * test advances them), and a throwaway database; `setup` runs after both (faults, a proxy…).
 * Whatever the file started (indexer, proxy) is stopped, and the database dropped, after all.
 */
export function useSimulatedCluster(options: SimulatorOptions, setup?: (fx: SimulatedClusterFixture) => Promise<void> | void): SimulatedClusterFixture {
  const fx = {} as SimulatedClusterFixture;
  beforeAll(async () => {
    fx.sim = await startSimulator({ port: 0, historyEndTimeMs: HISTORY_END, live: false, ...options });
    fx.db = await indexerDatabase();
    await setup?.(fx);
  }, 120_000);
  afterAll(async () => {
    await fx.indexer?.stop();
    await fx.proxy?.close();
    await fx.sim?.stop();
    await fx.db?.drop();
  });
  return fx;
}

export async function indexerDatabase(): Promise<TestDatabase> {
  return createTestDatabase([eventLogMigrations, indexerMigrations]);
}

/** A Storage over a test database (Postgres event log), as openStorage would hand the indexer. */
export function storageOf(db: TestDatabase): Storage {
  const log = createLogger('test', 'silent');
  const eventLog = openEventLog({ kafkaClientId: 'test', kafkaTopicPrefix: 'test', kafkaTopicPartitions: 1 }, db.pool, log);
  return { url: db.url, pool: db.pool, eventLog, close: async () => undefined };
}

/** Indexer settings for the simulator: generous rate limit, short timeouts, everything from slot 0. */
export function simIndexerEnv(sim: RunningSimulator, extra: Record<string, string> = {}): Record<string, string> {
  return {
    INDEXER_CLUSTERS: 'mainnet-beta,devnet',
    RPC_URL_MAINNET_BETA: sim.urls['mainnet-beta'],
    RPC_URL_DEVNET: sim.urls.devnet,
    RPC_RPS: '100000',
    RPC_CONCURRENCY: '4',
    RPC_TIMEOUT_MS: '2000',
    RPC_RETRY_BASE_MS: '20',
    RPC_RETRY_MAX_MS: '500',
    INDEXER_START_SLOT: '0',
    INDEXER_POLL_MS: '100',
    INDEXER_TX_POSITIONS: 'all',
    INDEXER_GAP_RETRY_SECONDS: '1',
    INDEXER_PROGRESS_SECONDS: '5',
    ...extra,
  };
}

export function simIndexerConfig(sim: RunningSimulator, extra: Record<string, string> = {}): IndexerConfig {
  return parseEnv(indexerEnvSchema, simIndexerEnv(sim, extra));
}

/** One JSON-RPC call as the proxy saw it, and the upstream's answer to it. */
export interface ProxiedCall {
  method: string;
  params: unknown[];
  reply: { result?: unknown; error?: unknown };
}

/**
 * A JSON-RPC proxy in front of one simulated cluster endpoint: every call goes to the real
 * simulator over HTTP, and `rewrite` may replace its reply (an error the node would give, an
 * account it would not return) — a fault the simulator has no switch for, injected at the wire.
 */
export type RpcProxy = Awaited<ReturnType<typeof startRpcProxy>>;

export async function startRpcProxy(
  target: string,
  rewrite: (call: ProxiedCall) => { result?: unknown; error?: unknown } | undefined,
  /** Awaited before a request goes upstream (e.g. to hold it until a test releases it). */
  beforeForward?: (calls: ReadonlyArray<{ method: string; params?: unknown[] }>) => Promise<void> | void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      void (async () => {
        if (beforeForward) {
          const sent = JSON.parse(body) as { method: string; params?: unknown[] } | { method: string; params?: unknown[] }[];
          await beforeForward(Array.isArray(sent) ? sent : [sent]);
        }
        const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await upstream.text();
        if (!upstream.ok) return void res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        const parsed = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string; params?: unknown[] }[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        const answers = JSON.parse(text) as Record<string, unknown> | Record<string, unknown>[];
        const replace = (a: Record<string, unknown>) => {
          const call = calls.find((c) => c.id === a.id);
          if (!call) return a;
          const out = rewrite({ method: call.method, params: call.params ?? [], reply: a });
          return out === undefined ? a : { jsonrpc: '2.0', id: a.id, ...out };
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(answers) ? answers.map(replace) : replace(answers)));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const path = new URL(target).pathname;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export async function readEventLog(db: TestDatabase, cluster?: Cluster): Promise<HadronEvent[]> {
  const { rows } = await db.pool.query<{ payload: string }>(
    cluster ? 'SELECT payload FROM event_log WHERE cluster = $1 ORDER BY seq' : 'SELECT payload FROM event_log ORDER BY seq',
    cluster ? [cluster] : [],
  );
  return rows.map((r) => JSON.parse(r.payload) as HadronEvent);
}

export async function waitFor(what: string, condition: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The indexer has indexed everything up to the simulator's head slot (and its gap ledger is empty). */
export async function caughtUp(
  db: TestDatabase,
  sim: RunningSimulator,
  cluster: Cluster,
  expectedSwaps = sim.groundTruth(cluster).swaps.length,
): Promise<boolean> {
  const head = sim.groundTruth(cluster).head_slot;
  const { rows } = await db.pool.query<{ through_slot: string | null; cycle: unknown }>(
    'SELECT through_slot, cycle FROM indexer.cluster_cursor WHERE cluster = $1',
    [cluster],
  );
  const gaps = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM indexer.gap WHERE cluster = $1', [cluster]);
  const swaps = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM event_log WHERE cluster = $1 AND payload::jsonb->>'type' = 'SwapExecuted'`, [
    cluster,
  ]);
  return (
    rows[0]?.through_slot !== null &&
    rows[0] !== undefined &&
    Number(rows[0].through_slot) >= head &&
    rows[0].cycle === null &&
    Number(gaps.rows[0].n) === 0 &&
    Number(swaps.rows[0].n) >= expectedSwaps
  );
}

// ---- comparison with the ground truth ---------------------------------------------------------

export interface Comparison {
  counts: Record<string, number>;
  /** Human-readable differences; empty = exact. */
  mismatches: string[];
  /**
   * Swaps whose midprice / spread in effect is null, each one checked to be UNKNOWABLE: no
   * transaction ever set that field before the swap and one sets it later (so neither the history
   * nor an account read can tell the value the oracle was created with). Any other null is a mismatch.
   */
  unknownMidprice: number;
  unknownSpread: number;
  /** Swaps carrying exactly the ground truth's fee split / carrying null before the pool's split was first observed (DESIGN §2). */
  splitMatches: number;
  splitUntracked: number;
  txIndexChecked: number;
}

/** Chain position: slot, position in the block, top-level instruction, inner instruction. */
type ChainPos = readonly [number, number, number, number];
const comparePos = (a: ChainPos, b: ChainPos) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3] - b[3];
const END_OF_SLOT = 2 ** 31;

/**
 * Where a transaction set each oracle field, in chain order: the ground-truth updates, and the
 * Initialize of a pool created during the history (it sets the first midprice).
 */
function oracleSetters(history: GroundTruth): Map<string, { midprice: ChainPos[]; spread: ChainPos[] }> {
  const out = new Map(history.pools.map((p) => [p.oracle, { midprice: [] as ChainPos[], spread: [] as ChainPos[] }]));
  for (const p of history.pools) if (p.created_signature !== null) out.get(p.oracle)!.midprice.push([p.created_slot, -1, -1, -1]);
  for (const u of history.oracle_updates) {
    const pos: ChainPos = [u.slot, u.tx_index, u.instruction_location.top_level_index, u.instruction_location.inner_index ?? -1];
    if (u.midprice_q32 !== null) out.get(u.oracle)!.midprice.push(pos);
    if (u.spread_factor_q32 !== null) out.get(u.oracle)!.spread.push(pos);
  }
  return out;
}

/** True when nothing set the field before `pos` and something sets it later: its value at `pos` cannot be known. */
function unknowable(setters: readonly ChainPos[], pos: ChainPos): boolean {
  return !setters.some((s) => comparePos(s, pos) < 0) && setters.some((s) => comparePos(s, pos) > 0);
}

const take = (list: string[], max = 20) => (list.length > max ? [...list.slice(0, max), `… and ${list.length - max} more`] : list);

/**
 * The oracle's values right after each ground-truth update. The simulator records what each
 * instruction set; the state after it is derived here by replaying every update of the pool's
 * oracle in chain order on top of the oracle at creation (`initial_oracle`).
 */
export function oracleAfterUpdates(gt: GroundTruth): Map<string, { midpriceQ32: string; spreadFactorQ32: string }> {
  const state = new Map(gt.pools.map((p) => [p.oracle, { midpriceQ32: p.initial_oracle.midprice_q32, spreadFactorQ32: p.initial_oracle.spread_factor_q32 }]));
  const ordered = [...gt.oracle_updates].sort(
    (a, b) =>
      a.slot - b.slot ||
      a.tx_index - b.tx_index ||
      a.instruction_location.top_level_index - b.instruction_location.top_level_index ||
      (a.instruction_location.inner_index ?? -1) - (b.instruction_location.inner_index ?? -1),
  );
  const out = new Map<string, { midpriceQ32: string; spreadFactorQ32: string }>();
  for (const u of ordered) {
    const before = state.get(u.oracle)!;
    const after = { midpriceQ32: u.midprice_q32 ?? before.midpriceQ32, spreadFactorQ32: u.spread_factor_q32 ?? before.spreadFactorQ32 };
    state.set(u.oracle, after);
    out.set(u.event_id, after);
  }
  return out;
}

/** The ground truth without some pools (and everything that happened to them). */
export function groundTruthWithout(gt: GroundTruth, pools: ReadonlySet<string>): GroundTruth {
  return {
    ...gt,
    pools: gt.pools.filter((p) => !pools.has(p.config)),
    swaps: gt.swaps.filter((s) => !pools.has(s.pool_config)),
    oracle_updates: gt.oracle_updates.filter((u) => u.pool_config_via_registry === null || !pools.has(u.pool_config_via_registry)),
    vault_balance_changes: gt.vault_balance_changes.filter((v) => !pools.has(v.pool_config)),
    fee_split_changes: gt.fee_split_changes.filter((c) => !pools.has(c.pool_config)),
  };
}

/** `history`: the whole ground truth when `gt` is a window of it (the oracle state after an update depends on every update before it). */
export function compareWithGroundTruth(events: readonly HadronEvent[], gt: GroundTruth, history: GroundTruth = gt): Comparison {
  const mismatches: string[] = [];
  const of = <T extends HadronEvent['type']>(type: T) => events.filter((e): e is Extract<HadronEvent, { type: T }> => e.type === type);
  const ids = new Set<string>();
  for (const e of events) {
    if (ids.has(e.id)) mismatches.push(`duplicate event id ${e.id}`);
    ids.add(e.id);
  }

  // Swaps: same ids, same amounts to the atom, same envelope.
  const swaps = of('SwapExecuted');
  const truthSwaps = new Map(gt.swaps.map((s) => [s.event_id, s]));
  const seenSwaps = new Set(swaps.map((s) => s.id));
  mismatches.push(...take(gt.swaps.filter((s) => !seenSwaps.has(s.event_id)).map((s) => `missing swap ${s.event_id}`)));
  const setters = oracleSetters(history);
  const discoveredAt = new Map(of('PoolDiscovered').map((d) => [d.pool, [d.slot, d.txIndex ?? END_OF_SLOT, END_OF_SLOT, END_OF_SLOT] as ChainPos]));
  let unknownMidprice = 0;
  let unknownSpread = 0;
  let splitMatches = 0;
  let splitUntracked = 0;
  let txIndexChecked = 0;
  const swapDiffs: string[] = [];
  for (const s of swaps) {
    const t = truthSwaps.get(s.id);
    if (!t) {
      swapDiffs.push(`swap ${s.id} is not in the ground truth`);
      continue;
    }
    const want = {
      pool: t.pool_config,
      slot: t.slot,
      blockTime: t.block_time,
      signature: t.signature,
      ixIndex: t.instruction_location.top_level_index,
      innerIndex: t.instruction_location.inner_index,
      side: t.side,
      trader: t.trader,
      inputMint: t.input_mint,
      outputMint: t.output_mint,
      amountIn: t.amount_in,
      amountInToVault: t.amount_in_to_vault,
      amountOut: t.amount_out,
      feeRaw: t.protocol_fee_raw,
      feeMint: t.protocol_fee_mint,
      feeRecipientAta: t.fee_recipient_ata,
      decimalsX: t.decimals_x,
      decimalsY: t.decimals_y,
      vaultXAfter: t.vault_x_after,
      vaultYAfter: t.vault_y_after,
    };
    const got = {
      pool: s.pool,
      slot: s.slot,
      blockTime: s.blockTime,
      signature: s.signature,
      ixIndex: s.ixIndex,
      innerIndex: s.innerIndex,
      ...s.data,
    };
    for (const [k, v] of Object.entries(want))
      if ((got as Record<string, unknown>)[k] !== v)
        swapDiffs.push(`swap ${s.id}: ${k} = ${JSON.stringify((got as Record<string, unknown>)[k])}, truth ${JSON.stringify(v)}`);
    if (s.txIndex !== null) {
      txIndexChecked++;
      if (s.txIndex !== t.tx_index) swapDiffs.push(`swap ${s.id}: txIndex ${s.txIndex}, truth ${t.tx_index}`);
    }
    const pos: ChainPos = [t.slot, t.tx_index, t.instruction_location.top_level_index, t.instruction_location.inner_index ?? -1];
    const set = setters.get(t.midprice_oracle)!;
    if (s.data.midpriceQ32 === null && unknowable(set.midprice, pos)) unknownMidprice++;
    else if (s.data.midpriceQ32 !== t.midprice_q32) swapDiffs.push(`swap ${s.id}: midprice in effect ${s.data.midpriceQ32}, truth ${t.midprice_q32}`);
    if (s.data.spreadFactorQ32 === null && unknowable(set.spread, pos)) unknownSpread++;
    else if (s.data.spreadFactorQ32 !== t.spread_factor_q32)
      swapDiffs.push(`swap ${s.id}: spread in effect ${s.data.spreadFactorQ32}, truth ${t.spread_factor_q32}`);
    // DESIGN §2: null before the pool's split is first observed (its PoolDiscovered); the truth's split from then on.
    const discovered = discoveredAt.get(t.pool_config);
    if (s.data.feeSplit === null && t.fee_split !== null && discovered !== undefined && comparePos(pos, discovered) < 0) splitUntracked++;
    else if (JSON.stringify(s.data.feeSplit) !== JSON.stringify(t.fee_split))
      swapDiffs.push(`swap ${s.id}: fee split ${JSON.stringify(s.data.feeSplit)}, truth ${JSON.stringify(t.fee_split)}`);
    else splitMatches++;
  }
  mismatches.push(...take(swapDiffs));

  // Oracle updates: same ids and fields; the pool found through the oracle registry.
  const updates = of('MidpriceUpdated');
  const truthUpdates = new Map(gt.oracle_updates.map((u) => [u.event_id, u]));
  const seenUpdates = new Set(updates.map((u) => u.id));
  mismatches.push(...take(gt.oracle_updates.filter((u) => !seenUpdates.has(u.event_id)).map((u) => `missing oracle update ${u.event_id}`)));
  const updateDiffs: string[] = [];
  const afterUpdates = oracleAfterUpdates(history);
  for (const u of updates) {
    const t = truthUpdates.get(u.id);
    if (!t) {
      updateDiffs.push(`oracle update ${u.id} is not in the ground truth`);
      continue;
    }
    const after = afterUpdates.get(u.id)!;
    const pos: ChainPos = [t.slot, t.tx_index, t.instruction_location.top_level_index, t.instruction_location.inner_index ?? -1];
    const set = setters.get(t.oracle)!;
    // A field this update did not set is null after it only where it was unknowable (see Comparison).
    const midAfter = u.data.midpriceAfterQ32 === null && t.midprice_q32 === null && unknowable(set.midprice, pos) ? null : after.midpriceQ32;
    const spreadAfter = u.data.spreadFactorAfterQ32 === null && t.spread_factor_q32 === null && unknowable(set.spread, pos) ? null : after.spreadFactorQ32;
    const want = [
      t.pool_config_via_registry,
      t.slot,
      t.block_time,
      t.instruction,
      t.oracle,
      t.quoting_authority,
      t.sequence,
      t.midprice_q32,
      t.spread_factor_q32,
      midAfter,
      spreadAfter,
    ];
    const got = [
      u.pool,
      u.slot,
      u.blockTime,
      u.data.instruction,
      u.data.oracle,
      u.data.quotingAuthority,
      u.data.sequence,
      u.data.midpriceQ32,
      u.data.spreadFactorQ32,
      u.data.midpriceAfterQ32,
      u.data.spreadFactorAfterQ32,
    ];
    if (JSON.stringify(want) !== JSON.stringify(got)) updateDiffs.push(`oracle update ${u.id}: ${JSON.stringify(got)} vs truth ${JSON.stringify(want)}`);
  }
  mismatches.push(...take(updateDiffs));

  // Vault balances: one per (transaction, pool) that changed them, with the balances after.
  const vaults = of('VaultBalancesChanged');
  const key = (signature: string | null, pool: string) => `${signature}/${pool}`;
  const truthVaults = new Map(gt.vault_balance_changes.map((v) => [key(v.signature, v.pool_config), v]));
  const seenVaults = new Set(vaults.map((v) => key(v.signature, v.pool)));
  mismatches.push(
    ...take(
      gt.vault_balance_changes
        .filter((v) => !seenVaults.has(key(v.signature, v.pool_config)))
        .map((v) => `missing vault balances ${key(v.signature, v.pool_config)} (${v.causes.join('+')})`),
    ),
  );
  const vaultDiffs: string[] = [];
  for (const v of vaults) {
    const t = truthVaults.get(key(v.signature, v.pool));
    if (!t) vaultDiffs.push(`vault balances ${key(v.signature, v.pool)} not in the ground truth`);
    else if (v.data.amountX !== t.vault_x_after || v.data.amountY !== t.vault_y_after || v.slot !== t.slot)
      vaultDiffs.push(`vault balances ${key(v.signature, v.pool)}: ${v.data.amountX}/${v.data.amountY} vs truth ${t.vault_x_after}/${t.vault_y_after}`);
  }
  mismatches.push(...take(vaultDiffs));

  // Pools: each discovered once, with its tokens.
  const discovered = of('PoolDiscovered');
  const byPool = new Map(discovered.map((d) => [d.pool, d]));
  if (discovered.length !== byPool.size) mismatches.push('a pool was discovered twice');
  const tokens = new Map(gt.tokens.map((t) => [t.mint, t]));
  for (const p of gt.pools) {
    const d = byPool.get(p.config);
    if (!d) {
      mismatches.push(`pool ${p.config} never discovered`);
      continue;
    }
    for (const [side, mint] of [
      ['tokenX', p.mint_x],
      ['tokenY', p.mint_y],
    ] as const) {
      const t = tokens.get(mint)!;
      const got = d.data[side];
      // What the chain called it where the pool was discovered ('' for a token without metadata; none is in the token list).
      const { symbol, name } = tokenNamesAt(t, d.slot);
      if (got.mint !== mint || got.decimals !== t.decimals || got.symbol !== symbol || got.name !== name)
        mismatches.push(`pool ${p.config} ${side}: ${JSON.stringify(got)} vs truth ${JSON.stringify({ mint, decimals: t.decimals, symbol, name })}`);
    }
    if (d.data.vaultX !== p.vault_x || d.data.vaultY !== p.vault_y || d.data.oracle !== p.oracle || d.data.seed !== p.seed || d.data.feeConfig !== p.fee_config)
      mismatches.push(`pool ${p.config}: addresses differ`);
  }
  if (byPool.size !== gt.pools.length) mismatches.push(`discovered ${byPool.size} pools, truth has ${gt.pools.length}`);
  mismatches.push(...take(accountStateMismatches(events, history)));

  return {
    counts: Object.fromEntries(
      ['PoolDiscovered', 'PoolConfigChanged', 'FeeSplitChanged', 'MidpriceUpdated', 'SwapExecuted', 'VaultBalancesChanged'].map((t) => [
        t,
        events.filter((e) => e.type === t).length,
      ]),
    ),
    mismatches,
    unknownMidprice,
    unknownSpread,
    splitMatches,
    splitUntracked,
    txIndexChecked,
  };
}

/**
 * PoolDiscovered / PoolConfigChanged / FeeSplitChanged against the ground truth: each one says
 * what was in effect where it is placed (pool state, fee rate, split — the simulator's admin
 * transactions run first in their slot), and each change event changes something: an event
 * repeating the pool's previous one is spurious. Pools on the global fee config publish no split.
 */
export function accountStateMismatches(events: readonly HadronEvent[], gt: GroundTruth): string[] {
  const out: string[] = [];
  const pos = (e: HadronEvent): ChainPos => [e.slot, e.txIndex ?? END_OF_SLOT, END_OF_SLOT, END_OF_SLOT];
  const inEffect = <T extends { slot: number }>(changes: readonly T[], at: ChainPos): T | undefined =>
    changes.filter((c) => comparePos([c.slot, -1, -1, -1], at) <= 0).pop();
  for (const p of gt.pools) {
    const own = events.filter((e) => e.pool === p.config).map((e, i) => ({ e, i }));
    own.sort((a, b) => comparePos(pos(a.e), pos(b.e)) || a.i - b.i);
    const splits = gt.fee_split_changes.filter((c) => c.pool_config === p.config);
    const globalPpm = gt.global_fee_configs.find((g) => g.address === p.fee_config)?.fee_ppm;
    let lastConfig: string | null = null;
    let lastSplit: string | null = null;
    for (const { e } of own) {
      if (e.type === 'PoolDiscovered' || e.type === 'PoolConfigChanged') {
        const state = inEffect(p.state_history, pos(e));
        const ppm = p.has_pool_fee === 1 ? inEffect(splits, pos(e))?.fee_ppm : globalPpm;
        if (e.data.poolStateRaw !== state?.state || e.data.feePpm !== ppm)
          out.push(`${e.type} ${e.id}: state ${e.data.poolStateRaw} fee ${e.data.feePpm}, truth there ${state?.state} fee ${ppm}`);
        const fingerprint = JSON.stringify([
          e.data.poolStateRaw,
          e.data.authority,
          e.data.quotingAuthority,
          e.data.feeConfig,
          e.data.feePpm,
          e.data.feeRecipient,
          e.data.hasPoolFee,
          e.data.oracleMode,
          e.data.spreadConfigInitialized,
        ]);
        if (e.type === 'PoolConfigChanged' && fingerprint === lastConfig) out.push(`spurious PoolConfigChanged ${e.id}: nothing changed`);
        lastConfig = fingerprint;
      }
      if (e.type === 'FeeSplitChanged') {
        const truth = inEffect(splits, pos(e));
        if (p.has_pool_fee !== 1) out.push(`FeeSplitChanged ${e.id} on a pool without its own fee config`);
        else if (!truth || e.data.feePpm !== truth.fee_ppm || JSON.stringify(e.data.recipients) !== JSON.stringify(truth.recipients))
          out.push(`FeeSplitChanged ${e.id}: ${JSON.stringify(e.data)}, truth there ${JSON.stringify(truth)}`);
        const fingerprint = JSON.stringify([e.data.feeConfig, e.data.feePpm, e.data.recipients]);
        if (fingerprint === lastSplit) out.push(`spurious FeeSplitChanged ${e.id}: same split as the pool's previous one`);
        lastSplit = fingerprint;
      }
    }
  }
  return out;
}

/** The current pool state and fee split the events leave each pool in, per the ground truth's last change. */
export function finalStateMismatches(events: readonly HadronEvent[], gt: GroundTruth): string[] {
  const out: string[] = [];
  const pos = (e: HadronEvent) => [e.slot, e.txIndex ?? 2 ** 31, e.ixIndex ?? 2 ** 31];
  const later = (a: HadronEvent, b: HadronEvent) => {
    const [pa, pb] = [pos(a), pos(b)];
    for (let i = 0; i < pa.length; i++) if (pa[i] !== pb[i]) return pa[i] > pb[i];
    return true;
  };
  for (const p of gt.pools) {
    let config: Extract<HadronEvent, { type: 'PoolDiscovered' | 'PoolConfigChanged' }> | undefined;
    let split: Extract<HadronEvent, { type: 'FeeSplitChanged' }> | undefined;
    for (const e of events) {
      if (e.pool !== p.config) continue;
      if ((e.type === 'PoolDiscovered' || e.type === 'PoolConfigChanged') && (!config || later(e, config))) config = e;
      if (e.type === 'FeeSplitChanged' && (!split || later(e, split))) split = e;
    }
    const lastState = p.state_history[p.state_history.length - 1];
    if (config?.data.poolStateRaw !== lastState.state) out.push(`pool ${p.config}: state ${config?.data.poolStateRaw}, truth ${lastState.state}`);
    const lastSplit = gt.fee_split_changes.filter((c) => c.pool_config === p.config).pop();
    if (lastSplit && (!split || JSON.stringify(split.data.recipients) !== JSON.stringify(lastSplit.recipients) || split.data.feePpm !== lastSplit.fee_ppm)) {
      out.push(`pool ${p.config}: fee split ${JSON.stringify(split?.data)}, truth ${JSON.stringify(lastSplit)}`);
    }
  }
  return out;
}
