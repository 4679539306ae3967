import { parseHadronEvent, type Cluster, type EventOf, type FeeSplitRecipient, type HadronEvent, type PoolSnapshot } from '@hadron/contracts';
import { fakeAddress, fakeSignature, swapData } from '@hadron/contracts/testing/sample-events';
import { inTransaction } from '@hadron/platform/database/pool';
import type { DeliveredEvent, SqlTx } from '@hadron/platform/event-log/event-log.port';
import type { Pool } from 'pg';

/** Hand-made, contract-valid events for projection tests. Every builder validates its result. */

export const Q = 4_294_967_296n; // 2^32
export const MID_1_5 = (3n * Q) / 2n; // 1.5 quote atoms per base atom
export const addr = (label: string) => fakeAddress(label);
export const MINT_X = addr('mint-x');
export const MINT_Y = addr('mint-y');

export interface At {
  cluster?: Cluster;
  pool: string;
  slot: number;
  blockTime?: number | null;
  txIndex?: number | null;
  ixIndex?: number | null;
  innerIndex?: number | null;
  id?: string;
}

let counter = 0;
function envelope(at: At, ixDefault: number | null) {
  const signature = fakeSignature(`sig:${at.pool}:${at.slot}:${at.txIndex ?? 'n'}:${++counter}`);
  const ixIndex = at.ixIndex === undefined ? ixDefault : at.ixIndex;
  return {
    version: 1 as const,
    cluster: at.cluster ?? ('mainnet-beta' as const),
    pool: at.pool,
    slot: at.slot,
    blockTime: at.blockTime === undefined ? 1_763_800_000 : at.blockTime,
    signature,
    txIndex: at.txIndex === undefined ? 0 : at.txIndex,
    ixIndex,
    innerIndex: at.innerIndex ?? null,
    decoderVersion: 'test',
    id: at.id ?? `${signature}:${ixIndex ?? 'tx'}`,
  };
}

function valid<T extends HadronEvent>(e: T): T {
  const r = parseHadronEvent(JSON.parse(JSON.stringify(e)));
  if (!r.ok) throw new Error(`test event breaks the contract: ${r.reason}`);
  return e;
}

export function snapshot(over: Partial<PoolSnapshot> = {}): PoolSnapshot {
  return {
    programId: addr('program'),
    programVersion: 1,
    seed: '7',
    authority: addr('authority'),
    quotingAuthority: addr('quoter'),
    oracle: addr('oracle'),
    tokenX: { mint: MINT_X, symbol: 'SOL', name: 'Wrapped SOL', decimals: 9, icon: 'https://icons/sol.png' },
    tokenY: { mint: MINT_Y, symbol: 'USDC', name: 'USD Coin', decimals: 6, icon: '' },
    vaultX: addr('vault-x'),
    vaultY: addr('vault-y'),
    poolState: 'Initialized',
    poolStateRaw: 1,
    oracleMode: 0,
    spreadConfigInitialized: true,
    hasPoolFee: false,
    feeConfig: addr('fee-config'),
    feePpm: 10,
    feeRecipient: addr('fee-recipient'),
    midpriceQ32: MID_1_5.toString(),
    spreadFactorQ32: (Q - (1n << 20n)).toString(),
    ...over,
  };
}

/** Account-state facts: txIndex/ixIndex null unless given. */
export function poolDiscovered(at: At, over: Partial<PoolSnapshot> = {}): EventOf<'PoolDiscovered'> {
  const env = envelope({ txIndex: null, ...at }, null);
  return valid({ ...env, signature: null, id: at.id ?? `${at.pool}:${at.slot}:discovered`, type: 'PoolDiscovered', data: snapshot(over) });
}

export function poolConfigChanged(at: At, over: Partial<PoolSnapshot> = {}): EventOf<'PoolConfigChanged'> {
  const env = envelope({ txIndex: null, ...at }, null);
  return valid({ ...env, signature: null, id: at.id ?? `${at.pool}:${at.slot}:config`, type: 'PoolConfigChanged', data: snapshot(over) });
}

/**
 * An oracle update; the instruction follows from which of `mid` / `spread` it sets. `after`: the
 * oracle's values after it as the indexer ≥ 1.1.0 reports them (a key left out stays absent, as in
 * events of older decoders; null = the indexer did not know).
 */
export function midpriceUpdated(
  at: At,
  mid: bigint | null,
  spread: bigint | null,
  sequence = at.slot,
  after: { mid?: bigint | null; spread?: bigint | null } = {},
): EventOf<'MidpriceUpdated'> {
  const instruction = mid !== null && spread !== null ? 'UpdateMidpriceAndBaseSpread' : mid !== null ? 'UpdateMidprice' : 'UpdateBaseSpread';
  const text = (v: bigint | null) => (v === null ? null : v.toString());
  return valid({
    ...envelope(at, 0),
    type: 'MidpriceUpdated',
    data: {
      instruction,
      oracle: addr('oracle'),
      quotingAuthority: addr('quoter'),
      sequence: String(sequence),
      midpriceQ32: mid === null ? null : mid.toString(),
      spreadFactorQ32: spread === null ? null : spread.toString(),
      ...('mid' in after ? { midpriceAfterQ32: text(after.mid ?? null) } : {}),
      ...('spread' in after ? { spreadFactorAfterQ32: text(after.spread ?? null) } : {}),
    },
  });
}

export interface SwapSpec {
  side: 'buy' | 'sell';
  amountIn: bigint;
  fee: bigint;
  amountOut: bigint;
  mid: bigint | null;
  split?: FeeSplitRecipient[] | null;
  vaultXAfter?: bigint;
  vaultYAfter?: bigint;
  decimalsX?: number;
  decimalsY?: number;
}

export function swapExecuted(at: At, s: SwapSpec): EventOf<'SwapExecuted'> {
  return valid({
    ...envelope(at, 1),
    type: 'SwapExecuted',
    data: swapData({
      ...s,
      mintX: MINT_X,
      mintY: MINT_Y,
      decimalsX: s.decimalsX ?? 9,
      decimalsY: s.decimalsY ?? 6,
      midQ32: s.mid,
      split: s.split ?? null,
      vaultXAfter: s.vaultXAfter ?? 1_000_000n,
      vaultYAfter: s.vaultYAfter ?? 2_000_000n,
      trader: addr('trader'),
      feeRecipientAta: addr('fee-ata'),
    }),
  });
}

export function vaultBalancesChanged(at: At, x: bigint, y: bigint): EventOf<'VaultBalancesChanged'> {
  return valid({
    ...envelope(at, null),
    type: 'VaultBalancesChanged',
    data: { vaultX: addr('vault-x'), vaultY: addr('vault-y'), amountX: x.toString(), amountY: y.toString() },
  });
}

export function feeSplitChanged(at: At, recipients: FeeSplitRecipient[], feePpm = 10): EventOf<'FeeSplitChanged'> {
  const env = envelope({ txIndex: null, ...at }, null);
  return valid({
    ...env,
    signature: null,
    id: at.id ?? `${at.pool}:${at.slot}:split`,
    type: 'FeeSplitChanged',
    data: { feeConfig: addr('fee-config'), feePpm, recipients },
  });
}

export function tokenMetadataChanged(
  at: At,
  token: { mint: string; symbol: string; name: string; icon?: string; decimals?: number },
): EventOf<'TokenMetadataChanged'> {
  const env = envelope({ txIndex: null, ...at }, null);
  const data = { mint: token.mint, symbol: token.symbol, name: token.name, decimals: token.decimals ?? 9, icon: token.icon ?? '' };
  return valid({ ...env, signature: null, id: at.id ?? `${at.pool}:metadata:${token.mint}:${at.slot}`, type: 'TokenMetadataChanged', data });
}

/** Delivers `events` to a handler in one transaction, as the consumer would (positions are synthetic). */
export async function applyBatch(
  pool: Pool,
  handler: (events: readonly DeliveredEvent[], tx: SqlTx) => Promise<void>,
  events: readonly HadronEvent[],
): Promise<void> {
  await inTransaction(pool, (client) =>
    handler(
      events.map((event, i) => ({ event, position: { stream: 'test', partition: 0, offset: BigInt(i) } })),
      client as unknown as SqlTx,
    ),
  );
}

/** A whole table as text rows, ordered: to compare states exactly. */
export async function dump(pool: Pool, table: string, orderBy: string): Promise<string[]> {
  const { rows } = await pool.query<{ r: string }>(`SELECT t::text AS r FROM ${table} t ORDER BY ${orderBy}`);
  return rows.map((x) => x.r);
}
