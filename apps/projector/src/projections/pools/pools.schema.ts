import type { ProjectionSchemaVersion } from '../../projection';

/** Snapshot columns written from PoolDiscovered / PoolConfigChanged (the "config" group). */
export const POOL_CONFIG_COLUMNS = [
  ['program_id', 'text'],
  ['program_version', 'smallint'],
  ['seed', 'numeric(20,0)'],
  ['authority', 'text'],
  ['oracle', 'text'],
  ['token_x_mint', 'text'],
  ['token_x_symbol', 'text'],
  ['token_x_name', 'text'],
  ['token_x_decimals', 'smallint'],
  ['token_x_icon', 'text'],
  ['token_y_mint', 'text'],
  ['token_y_symbol', 'text'],
  ['token_y_name', 'text'],
  ['token_y_decimals', 'smallint'],
  ['token_y_icon', 'text'],
  ['vault_x', 'text'],
  ['vault_y', 'text'],
  ['pool_state', 'text'],
  ['pool_state_raw', 'smallint'],
  ['oracle_mode', 'smallint'],
  ['spread_config_initialized', 'boolean'],
  ['has_pool_fee', 'boolean'],
  ['fee_config', 'text'],
  ['fee_ppm', 'integer'],
  ['fee_recipient', 'text'],
  ['config_slot', 'bigint'],
] as const;

/**
 * Groups of columns that each follow "latest chain position wins" on their own, with a position
 * column `<group>_pos` (int8[] = {slot, txIndex, ixIndex, innerIndex}, compared element-wise).
 */
export const POOL_GROUPS = {
  config: POOL_CONFIG_COLUMNS.map(([c]) => c),
  quoting_authority: ['quoting_authority'],
  midprice: ['midprice_q32'],
  spread_factor: ['spread_factor_q32'],
  vault: ['vault_x_amount', 'vault_y_amount'],
  fee_split: ['fee_split', 'fee_split_fee_ppm', 'fee_split_fee_config'],
} as const;

const Q32 = '4294967296';
const quoteUnit = (decimals: string) => `(${Q32}::numeric * power(10::numeric, ${decimals}))`;

/** v1 of the `pools` read model: one snapshot row per (cluster, pool) + the 24 h stats cache. */
export const poolsSchemaV1: ProjectionSchemaVersion = {
  version: 1,
  tables: [
    { name: 'pools', key: ['cluster', 'pool'] },
    { name: 'pool_stats_24h', key: ['cluster', 'pool'], volatile: true, wallClockColumns: ['refreshed_at'] },
  ],
  ddl: (s) => [
    `CREATE TABLE ${s}.pools (
      cluster text NOT NULL,
      pool text NOT NULL,
      ${POOL_CONFIG_COLUMNS.map(([c, t]) => `${c} ${t}`).join(',\n      ')},
      config_pos int8[],
      quoting_authority text,
      quoting_authority_pos int8[],
      midprice_q32 numeric(20,0),
      midprice_pos int8[],
      spread_factor_q32 numeric(20,0),
      spread_factor_pos int8[],
      vault_x_amount numeric(20,0),
      vault_y_amount numeric(20,0),
      vault_pos int8[],
      fee_split jsonb,
      fee_split_fee_ppm integer,
      fee_split_fee_config text,
      fee_split_pos int8[],
      tvl_q32 numeric GENERATED ALWAYS AS (COALESCE(vault_x_amount, 0) * COALESCE(midprice_q32, 0) + COALESCE(vault_y_amount, 0) * ${Q32}) STORED,
      PRIMARY KEY (cluster, pool))`,
    `CREATE TABLE ${s}.pool_stats_24h (
      cluster text NOT NULL,
      pool text NOT NULL,
      window_start bigint NOT NULL,
      window_end bigint NOT NULL,
      volume_q32 numeric NOT NULL,
      spread_q32 numeric NOT NULL,
      protocol_fee_q32 numeric NOT NULL,
      fees_q32 numeric NOT NULL,
      swap_count bigint NOT NULL,
      refreshed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (cluster, pool))`,
  ],
  views: [
    {
      name: 'pools',
      select: (s) => `SELECT p.cluster,
        p.pool AS address,
        COALESCE(NULLIF(p.token_x_symbol, ''), left(p.token_x_mint, 4)) || '/' || COALESCE(NULLIF(p.token_y_symbol, ''), left(p.token_y_mint, 4)) AS name,
        p.token_x_mint, p.token_x_symbol, p.token_x_name, p.token_x_decimals, p.token_x_icon,
        p.token_y_mint, p.token_y_symbol, p.token_y_name, p.token_y_decimals, p.token_y_icon,
        COALESCE(p.vault_x_amount, 0) AS token_x_amount,
        COALESCE(p.vault_y_amount, 0) AS token_y_amount,
        p.authority, p.quoting_authority, p.oracle_mode, p.pool_state, p.pool_state_raw,
        p.midprice_q32, p.spread_factor_q32,
        trim_scale(p.midprice_q32 * power(10::numeric, p.token_x_decimals - p.token_y_decimals) / ${Q32}) AS current_price,
        trim_scale((${Q32} - p.spread_factor_q32) * 10000 / ${Q32}) AS base_spread_bps,
        p.tvl_q32,
        trim_scale(p.tvl_q32 / ${quoteUnit('p.token_y_decimals')}) AS tvl,
        COALESCE(st.volume_q32, 0) AS volume_24h_q32,
        COALESCE(st.fees_q32, 0) AS fees_24h_q32,
        trim_scale(COALESCE(st.volume_q32, 0) / ${quoteUnit('p.token_y_decimals')}) AS volume_24h,
        trim_scale(COALESCE(st.fees_q32, 0) / ${quoteUnit('p.token_y_decimals')}) AS fees_24h,
        COALESCE(st.swap_count, 0) AS swap_count_24h,
        st.window_end AS stats_24h_window_end,
        p.program_id, p.program_version, p.seed, p.oracle, p.vault_x, p.vault_y,
        p.spread_config_initialized, p.has_pool_fee, p.fee_config, p.fee_ppm, p.fee_recipient,
        p.fee_split, p.config_slot
      FROM ${s}.pools p
      LEFT JOIN ${s}.pool_stats_24h st ON st.cluster = p.cluster AND st.pool = p.pool
      WHERE p.token_x_mint IS NOT NULL`,
    },
  ],
};
