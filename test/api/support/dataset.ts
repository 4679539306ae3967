import type { FeeSplitRecipient, HadronEvent, TokenMetadata } from '@hadron/contracts';
import { addr, midpriceUpdated, poolDiscovered, Q32, slotAt, swapExecuted, vaultBalancesChanged, type SwapSpec } from './events';

/**
 * One small, hand-checked world for the API end-to-end tests. Every figure the tests expect is
 * derived in the comments below from DESIGN §4; the data reaches the API only through the event
 * log and the projector.
 *
 * Time: NOW = 2025-11-24 17:02:05 UTC. H0 = NOW's hour (17:00), D0 = NOW's UTC day.
 */
export const NOW = 1_764_003_725;
export const H0 = 1_764_003_600;
export const D0 = 1_763_942_400;
export const HOUR = 3600;
export const DAY = 86_400;

const token = (symbol: string, decimals: number, name = symbol): TokenMetadata => ({
  mint: addr(`mint:${symbol}`),
  symbol,
  name,
  decimals,
  icon: `https://icons.example/${symbol}.png`,
});
export const SOL = token('SOL', 9, 'Wrapped SOL');
export const USDC = { ...token('USDC', 6, 'USD Coin'), icon: '' };
export const BONK = token('BONK', 5);
export const JUP = token('JUP', 6);
export const WIF = token('WIF', 6);
export const RAY = token('RAY', 6);
export const ORCA = token('ORCA', 6);

export const AUTH1 = addr('authority:1');
export const AUTH2 = addr('authority:2');
export const QUOTER1 = addr('quoter:1');
export const QUOTER2 = addr('quoter:2');
export const R1 = addr('recipient:1');
export const R2 = addr('recipient:2');
export const R3 = addr('recipient:3');

/** Pools. A, B, C, E, F on mainnet-beta; D on devnet only. */
export const POOL_A = addr('pool:A'); // SOL/USDC
export const POOL_B = addr('pool:B'); // BONK/USDC, Paused, u64-max X vault
export const POOL_C = addr('pool:C'); // JUP/SOL (quote = SOL)
export const POOL_D = addr('pool:D'); // WIF/USDC, devnet
export const POOL_E = addr('pool:E'); // RAY/USDC, no activity
export const POOL_F = addr('pool:F'); // ORCA/USDC, no activity
export const UNKNOWN_POOL = addr('pool:unknown');

/** Pool A midprice 0.25 quote atoms per base atom = 250 USDC per SOL (decimals 9 → 6). */
export const MID_A = 1n << 30n;
export const SPREAD_FACTOR = Q32 - (1n << 18n); // base_spread_bps = 2^18 / 2^32 × 10^4 = 0.6103515625
export const MID_B = 858_993n; // ≈ 0.0002 USDC atoms per BONK atom
export const MID_C = Q32; // 1 SOL atom per JUP atom

export const SPLIT_60_40: FeeSplitRecipient[] = [
  { recipient: R1, ppm: 600_000 },
  { recipient: R2, ppm: 400_000 },
];
export const SPLIT_50_50: FeeSplitRecipient[] = [
  { recipient: R1, ppm: 500_000 },
  { recipient: R2, ppm: 500_000 },
];

/**
 * Pool A swaps at mid 0.25:
 * - buy: 1 USDC in (1_000_000 atoms), fee 1000 Y atoms, out 3_990_000 X atoms →
 *   volume 1, protocol fee 0.001, spread (999_000 − 3_990_000 × 0.25) atoms = 1500 → 0.0015 USDC
 * - sell: 4_000_000 X atoms in, fee 4000 X atoms, out 997_000 Y atoms →
 *   volume 4e6 × 0.25 = 1 USDC, fee 1000 atoms = 0.001, spread (3_996_000 × 0.25 − 997_000) = 2000 → 0.002
 */
const A = { mintX: SOL.mint, mintY: USDC.mint, decimalsX: 9, decimalsY: 6, midQ32: MID_A };
export const buyA = (split: FeeSplitRecipient[] | null = null): SwapSpec => ({
  ...A,
  side: 'buy',
  amountIn: 1_000_000n,
  fee: 1000n,
  amountOut: 3_990_000n,
  split,
});
const sellA = (): SwapSpec => ({ ...A, side: 'sell', amountIn: 4_000_000n, fee: 4000n, amountOut: 997_000n, split: null });

/**
 * s1  NOW−10            buy  60/40   ─┐ 1h window [NOW−3600, NOW] = s1, s2, s4 (all raw: no whole hour)
 * s2  NOW (end, incl.)  buy  60/40    │
 * s4  NOW−3595          sell none    ─┘
 * s3  H0−3535           buy  50/50    whole hour inside 24h (hourly rollups)
 * s5  NOW−86400         buy  R1 100%  24h window start (inclusive): left partial hour, raw
 * s6  NOW−86401         buy           7d
 * s7  NOW−3d            buy           7d
 * s8  NOW−10d           buy           30d
 * s9  NOW−40d           buy           all
 * s10 no block time     buy           all (ts 0)
 */
export const SWAPS_A = {
  s1: { at: NOW - 10, spec: buyA(SPLIT_60_40) },
  s2: { at: NOW, spec: buyA(SPLIT_60_40) },
  s3: { at: H0 - 3535, spec: buyA(SPLIT_50_50) },
  s4: { at: NOW - 3595, spec: sellA() },
  s5: { at: NOW - DAY, spec: buyA([{ recipient: R1, ppm: 1_000_000 }]) },
  s6: { at: NOW - DAY - 1, spec: buyA() },
  s7: { at: NOW - 3 * DAY, spec: buyA() },
  s8: { at: NOW - 10 * DAY, spec: buyA() },
  s9: { at: NOW - 40 * DAY, spec: buyA() },
  s10: { at: null, spec: buyA() },
} as const;

/** Expected fees of pool A per interval (see the table above). */
export const FEES_A = {
  '1h': { volume_usd: 3, spread_usd: 0.005, protocol_fee_usd: 0.003, protocol_fee_x_raw: 4000, protocol_fee_y_raw: 2000, swap_count: 3 },
  '24h': { volume_usd: 5, spread_usd: 0.008, protocol_fee_usd: 0.005, protocol_fee_x_raw: 4000, protocol_fee_y_raw: 4000, swap_count: 5 },
  '7d': { volume_usd: 7, spread_usd: 0.011, protocol_fee_usd: 0.007, protocol_fee_x_raw: 4000, protocol_fee_y_raw: 6000, swap_count: 7 },
  '30d': { volume_usd: 8, spread_usd: 0.0125, protocol_fee_usd: 0.008, protocol_fee_x_raw: 4000, protocol_fee_y_raw: 7000, swap_count: 8 },
  all: { volume_usd: 10, spread_usd: 0.0155, protocol_fee_usd: 0.01, protocol_fee_x_raw: 4000, protocol_fee_y_raw: 9000, swap_count: 10 },
} as const;

/** 24h split: R1 = 600 + 600 + 500 + 1000 atoms, latest ppm (s2) 600000; R2 = 400 + 400 + 500. */
export const SPLIT_A_24H = [
  { recipient: R1, ppm: 600_000, fee_usd: 0.0027, fee_x_raw: 0, fee_y_raw: 2700 },
  { recipient: R2, ppm: 400_000, fee_usd: 0.0013, fee_x_raw: 0, fee_y_raw: 1300 },
];
export const SPLIT_A_1H = [
  { recipient: R1, ppm: 600_000, fee_usd: 0.0012, fee_x_raw: 0, fee_y_raw: 1200 },
  { recipient: R2, ppm: 400_000, fee_usd: 0.0008, fee_x_raw: 0, fee_y_raw: 800 },
];

/**
 * Pool A midprice updates (spread factor constant). Several per second at H0+20 and H0+21.
 * `mid` is the Q32 value; `bump` orders updates inside one second (slot = f(time) + bump).
 */
export const MIDS_A = {
  m6: { at: NOW - DAY - 10, bump: 1, mid: MID_A + 6n }, // before the default 24 h range
  m1: { at: H0 - 7200 + 10, bump: 1, mid: MID_A + 1n },
  m2: { at: H0 - 7200 + 3000, bump: 1, mid: MID_A + 2n },
  m3a: { at: H0 + 20, bump: 1, mid: MID_A + 31n },
  m3b: { at: H0 + 20, bump: 2, mid: MID_A + 32n },
  m3c: { at: H0 + 20, bump: 3, mid: MID_A + 33n },
  m4a: { at: H0 + 21, bump: 1, mid: MID_A + 41n },
  m4b: { at: H0 + 21, bump: 2, mid: MID_A + 42n },
  m5: { at: H0 + 65, bump: 1, mid: MID_A + 5n },
  m7: { at: NOW, bump: 10, mid: MID_A }, // the current midprice
} as const;
export type MidKey = keyof typeof MIDS_A;
export const midSlot = (k: MidKey): number => slotAt(MIDS_A[k].at, MIDS_A[k].bump);
export const midValue = (k: MidKey): number => Number(MIDS_A[k].mid) / 2 ** 32;

/** Volume history of pool A, default range (NOW − 7d … NOW = days D−7 … D0). */
export const VOLUME_A_DEFAULT = [
  { timestamp: D0 - 7 * DAY, volume: 0, fees: 0 },
  { timestamp: D0 - 6 * DAY, volume: 0, fees: 0 },
  { timestamp: D0 - 5 * DAY, volume: 0, fees: 0 },
  { timestamp: D0 - 4 * DAY, volume: 0, fees: 0 },
  { timestamp: D0 - 3 * DAY, volume: 1, fees: 0.0025 }, // s7
  { timestamp: D0 - 2 * DAY, volume: 0, fees: 0 },
  { timestamp: D0 - 1 * DAY, volume: 2, fees: 0.005 }, // s5, s6
  { timestamp: D0, volume: 4, fees: 0.0105 }, // s1..s4: spread 0.0065 + fee 0.004
];

export const U64_MAX = 18_446_744_073_709_551_615n;

export function datasetEvents(): HadronEvent[] {
  const events: HadronEvent[] = [];
  const born = NOW - 50 * DAY;
  events.push(
    poolDiscovered(
      { pool: POOL_A, blockTime: born },
      { tokenX: SOL, tokenY: USDC, authority: AUTH1, quotingAuthority: QUOTER1, midpriceQ32: MID_A, spreadFactorQ32: SPREAD_FACTOR },
    ),
    poolDiscovered(
      { pool: POOL_B, blockTime: born },
      { tokenX: BONK, tokenY: USDC, authority: AUTH2, quotingAuthority: QUOTER1, poolState: 'Paused', midpriceQ32: MID_B, spreadFactorQ32: SPREAD_FACTOR },
    ),
    poolDiscovered(
      { pool: POOL_C, blockTime: born },
      { tokenX: JUP, tokenY: SOL, authority: AUTH1, quotingAuthority: QUOTER2, midpriceQ32: MID_C, spreadFactorQ32: SPREAD_FACTOR },
    ),
    poolDiscovered({ pool: POOL_E, blockTime: born }, { tokenX: RAY, tokenY: USDC, authority: AUTH1, quotingAuthority: null, midpriceQ32: null }),
    poolDiscovered(
      { pool: POOL_F, blockTime: born },
      { tokenX: ORCA, tokenY: USDC, authority: AUTH1, quotingAuthority: null, poolState: 'Uninitialized', midpriceQ32: null },
    ),
    poolDiscovered(
      { cluster: 'devnet', pool: POOL_D, blockTime: born },
      { tokenX: WIF, tokenY: USDC, authority: AUTH2, quotingAuthority: QUOTER1, midpriceQ32: Q32, spreadFactorQ32: SPREAD_FACTOR },
    ),
  );
  for (const { at, spec } of Object.values(SWAPS_A)) events.push(swapExecuted({ pool: POOL_A, blockTime: at }, spec));
  for (const m of Object.values(MIDS_A)) events.push(midpriceUpdated({ pool: POOL_A, blockTime: m.at, bump: m.bump }, m.mid, SPREAD_FACTOR, QUOTER1));

  // Pool B: two buys, default fee recipient (no split): volume 2, protocol fee 0.002 USDC.
  const B = { mintX: BONK.mint, mintY: USDC.mint, decimalsX: 5, decimalsY: 6, midQ32: MID_B };
  for (const at of [NOW - 7200, NOW - 7300])
    events.push(swapExecuted({ pool: POOL_B, blockTime: at }, { ...B, side: 'buy', amountIn: 1_000_000n, fee: 1000n, amountOut: 4_990_000_000n, split: null }));

  // Pool C (quote SOL): c1 carries a split but pays no fee (rule 2); c2 pays a fee, no split (7d only).
  const C = { mintX: JUP.mint, mintY: SOL.mint, decimalsX: 6, decimalsY: 9, midQ32: MID_C };
  events.push(
    swapExecuted(
      { pool: POOL_C, blockTime: NOW - 100 },
      { ...C, side: 'buy', amountIn: 1_000_000_000n, fee: 0n, amountOut: 999_000_000n, split: [{ recipient: R3, ppm: 1_000_000 }] },
    ),
    swapExecuted(
      { pool: POOL_C, blockTime: NOW - 2 * DAY },
      { ...C, side: 'buy', amountIn: 1_000_000_000n, fee: 1_000_000n, amountOut: 998_000_000n, split: null },
    ),
  );

  // Pool D (devnet): 9 USDC.
  events.push(
    swapExecuted(
      { cluster: 'devnet', pool: POOL_D, blockTime: NOW - 50 },
      { mintX: WIF.mint, mintY: USDC.mint, decimalsX: 6, decimalsY: 6, midQ32: Q32, side: 'buy', amountIn: 9_000_000n, fee: 0n, amountOut: 8_990_000n },
    ),
  );

  // Vault balances, after everything else. TVL: A = 1000 SOL × 250 + 50 000 USDC = 300 000;
  // B = u64-max BONK atoms (exact digits in JSON); C = 1000 JUP × 0.001 SOL + 1 SOL = 2 SOL.
  events.push(
    vaultBalancesChanged({ pool: POOL_A, blockTime: NOW, bump: 50 }, 1_000_000_000_000n, 50_000_000_000n),
    vaultBalancesChanged({ pool: POOL_B, blockTime: NOW, bump: 50 }, U64_MAX, 1_000_000n),
    vaultBalancesChanged({ pool: POOL_C, blockTime: NOW, bump: 50 }, 1_000_000_000n, 1_000_000_000n),
  );
  return events;
}
