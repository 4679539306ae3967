export interface MarketOptions {
  /** Names the cluster in ground truth and seeds its PRNG streams with `seed`. */
  cluster: string;
  seed: string;
  pools: number;
  historySeconds: number;
  /** Unix ms where the history ends (live slots continue from here). */
  historyEndTimeMs: number;
  slotMs: number;
  /** Oracle updates per second on a busy pool (medium pools ¼, quiet ones ~1/16). */
  midpriceUpdatesPerSecond: number;
  /** Swaps per second on a busy pool. */
  swapsPerSecond: number;
  /** Deposits + withdrawals per second per pool. */
  liquidityEventsPerSecond: number;
  /** Fraction of slots with no block. */
  skippedSlotRate: number;
  /** Fraction of swaps sent with a min_out they cannot meet (failed tx). */
  failedSwapRate: number;
  /**
   * With ≥ 6 pools the last one is created (Initialize + first deposit) at this fraction of the
   * history instead of at genesis: swaps on a pool an indexer has not discovered yet. null = never.
   */
  latePoolAt: number | null;
  /** An extra pool (index `pools`) is created this many seconds into live mode; null = never. */
  newPoolAfterSeconds: number | null;
  /**
   * The span (from the first slot) over which the lifecycle (pause, reject swaps, close), the fee
   * split changes and the late pool are placed, as fractions of it; null = the history. Longer than
   * the history, the later ones happen in slots produced afterwards (live or `advance`), where a
   * client can observe each account state as it changes.
   */
  scheduleSeconds: number | null;
}

export const DEFAULT_MARKET_OPTIONS: Omit<MarketOptions, 'cluster' | 'seed' | 'historyEndTimeMs'> = {
  /** Every template of the catalog's rotation (POOL_ROTATION). */
  pools: 8,
  historySeconds: 1800,
  slotMs: 400,
  midpriceUpdatesPerSecond: 3,
  swapsPerSecond: 0.6,
  liquidityEventsPerSecond: 1 / 300,
  skippedSlotRate: 0.03,
  failedSwapRate: 0.04,
  latePoolAt: 0.5,
  newPoolAfterSeconds: null,
  scheduleSeconds: null,
};
