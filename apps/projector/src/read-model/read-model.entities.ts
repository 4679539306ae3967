import { ViewColumn, ViewEntity } from 'typeorm';

/**
 * The `read.*` views: the API's contract with the projector (documented in apps/projector/README.md).
 * `synchronize: false`: the projector owns these views and repoints them on every build switch;
 * TypeORM must never create or alter them. Money columns `*_q32` are exact numeric Q32 quote atoms
 * (quote atoms × 2^32) and `*_x1e6` are additionally × 10^6; int8/numeric arrive as strings.
 * read-model.entities.int-spec.ts fails when an entity and its view disagree.
 */

@ViewEntity({ schema: 'read', name: 'pools', synchronize: false })
export class ReadPool {
  @ViewColumn() cluster: string;
  @ViewColumn() address: string;
  @ViewColumn() name: string;
  @ViewColumn({ name: 'token_x_mint' }) tokenXMint: string;
  @ViewColumn({ name: 'token_x_symbol' }) tokenXSymbol: string;
  @ViewColumn({ name: 'token_x_name' }) tokenXName: string;
  @ViewColumn({ name: 'token_x_decimals' }) tokenXDecimals: number;
  @ViewColumn({ name: 'token_x_icon' }) tokenXIcon: string;
  @ViewColumn({ name: 'token_y_mint' }) tokenYMint: string;
  @ViewColumn({ name: 'token_y_symbol' }) tokenYSymbol: string;
  @ViewColumn({ name: 'token_y_name' }) tokenYName: string;
  @ViewColumn({ name: 'token_y_decimals' }) tokenYDecimals: number;
  @ViewColumn({ name: 'token_y_icon' }) tokenYIcon: string;
  @ViewColumn({ name: 'token_x_amount' }) tokenXAmount: string;
  @ViewColumn({ name: 'token_y_amount' }) tokenYAmount: string;
  @ViewColumn() authority: string;
  @ViewColumn({ name: 'quoting_authority' }) quotingAuthority: string | null;
  @ViewColumn({ name: 'oracle_mode' }) oracleMode: number;
  @ViewColumn({ name: 'pool_state' }) poolState: string;
  @ViewColumn({ name: 'pool_state_raw' }) poolStateRaw: number;
  @ViewColumn({ name: 'midprice_q32' }) midpriceQ32: string | null;
  @ViewColumn({ name: 'spread_factor_q32' }) spreadFactorQ32: string | null;
  @ViewColumn({ name: 'current_price' }) currentPrice: string | null;
  @ViewColumn({ name: 'base_spread_bps' }) baseSpreadBps: string | null;
  @ViewColumn({ name: 'tvl_q32' }) tvlQ32: string;
  @ViewColumn() tvl: string;
  @ViewColumn({ name: 'volume_24h_q32' }) volume24hQ32: string;
  @ViewColumn({ name: 'fees_24h_q32' }) fees24hQ32: string;
  @ViewColumn({ name: 'volume_24h' }) volume24h: string;
  @ViewColumn({ name: 'fees_24h' }) fees24h: string;
  @ViewColumn({ name: 'swap_count_24h' }) swapCount24h: string;
  @ViewColumn({ name: 'stats_24h_window_end' }) stats24hWindowEnd: string | null;
  @ViewColumn({ name: 'program_id' }) programId: string;
  @ViewColumn({ name: 'program_version' }) programVersion: number;
  @ViewColumn() seed: string;
  @ViewColumn() oracle: string;
  @ViewColumn({ name: 'vault_x' }) vaultX: string;
  @ViewColumn({ name: 'vault_y' }) vaultY: string;
  @ViewColumn({ name: 'spread_config_initialized' }) spreadConfigInitialized: boolean;
  @ViewColumn({ name: 'has_pool_fee' }) hasPoolFee: boolean;
  @ViewColumn({ name: 'fee_config' }) feeConfig: string | null;
  @ViewColumn({ name: 'fee_ppm' }) feePpm: number | null;
  @ViewColumn({ name: 'fee_recipient' }) feeRecipient: string | null;
  @ViewColumn({ name: 'fee_split' }) feeSplit: Array<{ recipient: string; ppm: number }> | null;
  @ViewColumn({ name: 'config_slot' }) configSlot: string;
}

/** Chain position columns, normalised (see ChainPosition in libs/domain): never null. */
abstract class Positioned {
  @ViewColumn() slot: string;
  @ViewColumn({ name: 'tx_index' }) txIndex: number;
  @ViewColumn({ name: 'ix_index' }) ixIndex: number;
  @ViewColumn({ name: 'inner_index' }) innerIndex: number;
}

/** What every fact row starts with: its pool, time, event id and chain position (FactColumns in SQL). */
abstract class Fact extends Positioned {
  @ViewColumn() cluster: string;
  @ViewColumn() pool: string;
  /** Block time, or 0 when unknown. */
  @ViewColumn() ts: string;
  @ViewColumn() id: string;
  @ViewColumn({ name: 'block_time' }) blockTime: string | null;
  @ViewColumn() signature: string | null;
}

@ViewEntity({ schema: 'read', name: 'swaps', synchronize: false })
export class ReadSwap extends Fact {
  @ViewColumn() side: 'buy' | 'sell';
  @ViewColumn() trader: string;
  @ViewColumn({ name: 'amount_in' }) amountIn: string;
  @ViewColumn({ name: 'amount_in_to_vault' }) amountInToVault: string;
  @ViewColumn({ name: 'amount_out' }) amountOut: string;
  @ViewColumn({ name: 'fee_x_raw' }) feeXRaw: string;
  @ViewColumn({ name: 'fee_y_raw' }) feeYRaw: string;
  @ViewColumn({ name: 'decimals_x' }) decimalsX: number;
  @ViewColumn({ name: 'decimals_y' }) decimalsY: number;
  @ViewColumn({ name: 'midprice_q32' }) midpriceQ32: string | null;
  @ViewColumn({ name: 'volume_q32' }) volumeQ32: string;
  @ViewColumn({ name: 'spread_q32' }) spreadQ32: string;
  @ViewColumn({ name: 'protocol_fee_q32' }) protocolFeeQ32: string;
  @ViewColumn() priced: boolean;
  @ViewColumn({ name: 'split_tracked' }) splitTracked: boolean;
  /** The fee split the swap carried (recipients merged), null without one; see ReadSwapFeeSplit. */
  @ViewColumn({ name: 'split_recipients' }) splitRecipients: string[] | null;
  @ViewColumn({ name: 'split_ppm' }) splitPpm: number[] | null;
}

@ViewEntity({ schema: 'read', name: 'swap_fee_splits', synchronize: false })
export class ReadSwapFeeSplit extends Positioned {
  @ViewColumn() cluster: string;
  @ViewColumn() pool: string;
  @ViewColumn() ts: string;
  @ViewColumn({ name: 'swap_id' }) swapId: string;
  @ViewColumn() recipient: string;
  @ViewColumn() ppm: number;
  @ViewColumn({ name: 'fee_x_raw_x1e6' }) feeXRawX1e6: string;
  @ViewColumn({ name: 'fee_y_raw_x1e6' }) feeYRawX1e6: string;
  @ViewColumn({ name: 'fee_value_q32_x1e6' }) feeValueQ32X1e6: string;
}

abstract class PoolTotals {
  @ViewColumn() cluster: string;
  @ViewColumn() pool: string;
  @ViewColumn({ name: 'volume_q32' }) volumeQ32: string;
  @ViewColumn({ name: 'spread_q32' }) spreadQ32: string;
  @ViewColumn({ name: 'protocol_fee_q32' }) protocolFeeQ32: string;
  @ViewColumn({ name: 'fee_x_raw' }) feeXRaw: string;
  @ViewColumn({ name: 'fee_y_raw' }) feeYRaw: string;
  @ViewColumn({ name: 'swap_count' }) swapCount: string;
  @ViewColumn({ name: 'unpriced_count' }) unpricedCount: string;
}

@ViewEntity({ schema: 'read', name: 'fee_rollup_hourly', synchronize: false })
export class ReadFeeRollupHourly extends PoolTotals {
  @ViewColumn({ name: 'hour_start' }) hourStart: string;
}

@ViewEntity({ schema: 'read', name: 'fee_rollup_minute', synchronize: false })
export class ReadFeeRollupMinute extends PoolTotals {
  @ViewColumn({ name: 'minute_start' }) minuteStart: string;
}

/** A recipient's fee shares in one bucket; `last_*`: its latest split swap in the bucket, by chain position. */
abstract class RecipientTotals {
  @ViewColumn() cluster: string;
  @ViewColumn() pool: string;
  @ViewColumn() recipient: string;
  @ViewColumn({ name: 'fee_x_raw_x1e6' }) feeXRawX1e6: string;
  @ViewColumn({ name: 'fee_y_raw_x1e6' }) feeYRawX1e6: string;
  @ViewColumn({ name: 'fee_value_q32_x1e6' }) feeValueQ32X1e6: string;
  @ViewColumn({ name: 'swap_count' }) swapCount: string;
  @ViewColumn({ name: 'last_ppm' }) lastPpm: number;
  @ViewColumn({ name: 'last_slot' }) lastSlot: string;
  @ViewColumn({ name: 'last_tx_index' }) lastTxIndex: number;
  @ViewColumn({ name: 'last_ix_index' }) lastIxIndex: number;
  @ViewColumn({ name: 'last_inner_index' }) lastInnerIndex: number;
}

@ViewEntity({ schema: 'read', name: 'fee_recipient_hourly', synchronize: false })
export class ReadFeeRecipientHourly extends RecipientTotals {
  @ViewColumn({ name: 'hour_start' }) hourStart: string;
}

/** Swaps v2: the same per recipient and minute (a split over any window reads hours + minutes + ≤ 2 raw minutes). */
@ViewEntity({ schema: 'read', name: 'fee_recipient_minute', synchronize: false })
export class ReadFeeRecipientMinute extends RecipientTotals {
  @ViewColumn({ name: 'minute_start' }) minuteStart: string;
}

@ViewEntity({ schema: 'read', name: 'volume_daily', synchronize: false })
export class ReadVolumeDaily {
  @ViewColumn() cluster: string;
  @ViewColumn() pool: string;
  @ViewColumn({ name: 'day_start' }) dayStart: string;
  @ViewColumn({ name: 'volume_q32' }) volumeQ32: string;
  @ViewColumn({ name: 'spread_q32' }) spreadQ32: string;
  @ViewColumn({ name: 'protocol_fee_q32' }) protocolFeeQ32: string;
  @ViewColumn({ name: 'fees_q32' }) feesQ32: string;
  @ViewColumn({ name: 'swap_count' }) swapCount: string;
}

@ViewEntity({ schema: 'read', name: 'midprice_points', synchronize: false })
export class ReadMidpricePoint extends Fact {
  @ViewColumn() instruction: string;
  @ViewColumn() sequence: string;
  @ViewColumn({ name: 'midprice_q32' }) midpriceQ32: string | null;
  @ViewColumn({ name: 'spread_factor_q32' }) spreadFactorQ32: string | null;
  @ViewColumn() midprice: string | null;
  @ViewColumn({ name: 'base_spread_factor' }) baseSpreadFactor: string | null;
}

abstract class LastPoint extends Positioned {
  @ViewColumn() cluster: string;
  @ViewColumn() pool: string;
  @ViewColumn() ts: string;
  @ViewColumn() signature: string | null;
  @ViewColumn({ name: 'midprice_q32' }) midpriceQ32: string | null;
  @ViewColumn({ name: 'spread_factor_q32' }) spreadFactorQ32: string | null;
  @ViewColumn() midprice: string | null;
  @ViewColumn({ name: 'base_spread_factor' }) baseSpreadFactor: string | null;
  @ViewColumn({ name: 'point_id' }) pointId: string;
}

@ViewEntity({ schema: 'read', name: 'midprice_minute', synchronize: false })
export class ReadMidpriceMinute extends LastPoint {
  @ViewColumn({ name: 'minute_start' }) minuteStart: string;
}

@ViewEntity({ schema: 'read', name: 'midprice_hourly', synchronize: false })
export class ReadMidpriceHourly extends LastPoint {
  @ViewColumn({ name: 'hour_start' }) hourStart: string;
}

export const readModelEntities = [
  ReadPool,
  ReadSwap,
  ReadSwapFeeSplit,
  ReadFeeRollupHourly,
  ReadFeeRollupMinute,
  ReadFeeRecipientHourly,
  ReadFeeRecipientMinute,
  ReadVolumeDaily,
  ReadMidpricePoint,
  ReadMidpriceMinute,
  ReadMidpriceHourly,
];
