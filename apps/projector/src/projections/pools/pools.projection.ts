import { assertNever, type HadronEvent } from '@hadron/contracts';
import { chainPosition, compareChainPositions, normaliseSplit, type ChainPosition } from '@hadron/domain';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import type { ProjectionDefinition } from '../../projection';
import { assertApplicable } from '../event-checks';
import { refreshPoolStats24h } from './pool-stats-24h.refresher';
import { POOL_CONFIG_COLUMNS, POOL_GROUPS, poolsSchemaV1 } from './pools.schema';

type Group = keyof typeof POOL_GROUPS;
type Values = Record<string, unknown>;
interface PoolPatch {
  cluster: string;
  pool: string;
  groups: Partial<Record<Group, { pos: ChainPosition; values: Values }>>;
}

const COLUMN_TYPES: Record<string, string> = {
  ...Object.fromEntries(POOL_CONFIG_COLUMNS),
  quoting_authority: 'text',
  midprice_q32: 'numeric(20,0)',
  spread_factor_q32: 'numeric(20,0)',
  vault_x_amount: 'numeric(20,0)',
  vault_y_amount: 'numeric(20,0)',
  fee_split: 'jsonb',
  fee_split_fee_ppm: 'integer',
  fee_split_fee_config: 'text',
};

/**
 * `pools`: one snapshot row per (cluster, pool). Every group of columns keeps its own chain
 * position and only moves forward, so an older fact (e.g. a late VaultBalancesChanged) never
 * overwrites a newer one, and re-applying a batch changes nothing. One upsert per batch: the
 * batch is first folded per pool in memory (latest position per group wins).
 */
export function createPoolsHandler(schema: string): BatchHandler {
  const sql = upsertSql(schema);
  const renameSql = tokenRenameSql(schema);
  return async (events, tx) => {
    const patches = new Map<string, PoolPatch>();
    const renames = new Map<string, TokenRename>();
    for (const { event } of events) {
      assertApplicable(event);
      if (event.type === 'TokenMetadataChanged') {
        const { mint, symbol, name, icon } = event.data;
        const key = `${event.cluster} ${event.pool} ${mint}`;
        renames.delete(key); // keep log order: the last rename of a (pool, mint) in the batch wins
        renames.set(key, { cluster: event.cluster, pool: event.pool, mint, symbol, name, icon });
        continue;
      }
      const key = `${event.cluster} ${event.pool}`;
      let patch = patches.get(key);
      if (!patch) patches.set(key, (patch = { cluster: event.cluster, pool: event.pool, groups: {} }));
      apply(patch, event);
    }
    if (patches.size > 0) {
      const rows = [...patches.values()].map(({ cluster, pool, groups }) => {
        const row: Values = { cluster, pool };
        for (const [group, g] of Object.entries(groups)) {
          Object.assign(row, g.values);
          row[`${group}_pos`] = [g.pos.slot, g.pos.txIndex, g.pos.ixIndex, g.pos.innerIndex];
        }
        return row;
      });
      await tx.query(sql, [JSON.stringify(rows)]);
    }
    // After the snapshots: a rename is newer than every snapshot before it in the log (see tokenRenameSql).
    if (renames.size > 0) await tx.query(renameSql, [JSON.stringify([...renames.values()])]);
  };
}

interface TokenRename {
  cluster: string;
  pool: string;
  mint: string;
  symbol: string;
  name: string;
  icon: string;
}

/**
 * TokenMetadataChanged: the token's name, symbol and icon on the pool's side(s) holding the mint.
 * Log order decides, not chain position: the indexer reads metadata at the head, apart from the
 * cursor, and every snapshot it builds after a rename already carries the new names, so the last
 * word in the log is always the newest. Re-applying a batch writes the same values again.
 */
function tokenRenameSql(s: string): string {
  const side = (x: 'x' | 'y') =>
    ['symbol', 'name', 'icon'].map((f) => `token_${x}_${f} = CASE WHEN t.token_${x}_mint = r.mint THEN r.${f} ELSE t.token_${x}_${f} END`);
  return `UPDATE ${s}.pools AS t SET ${[...side('x'), ...side('y')].join(', ')}
    FROM jsonb_to_recordset($1::jsonb) AS r(cluster text, pool text, mint text, symbol text, name text, icon text)
    WHERE t.cluster = r.cluster AND t.pool = r.pool AND r.mint IN (t.token_x_mint, t.token_y_mint)`;
}

function apply(patch: PoolPatch, e: HadronEvent): void {
  const pos = chainPosition(e);
  const offer = (group: Group, values: Values) => {
    const current = patch.groups[group];
    if (!current || compareChainPositions(pos, current.pos) >= 0) patch.groups[group] = { pos, values };
  };
  switch (e.type) {
    case 'PoolDiscovered':
    case 'PoolConfigChanged': {
      const d = e.data;
      offer('config', {
        program_id: d.programId,
        program_version: d.programVersion,
        seed: d.seed,
        authority: d.authority,
        oracle: d.oracle,
        token_x_mint: d.tokenX.mint,
        token_x_symbol: d.tokenX.symbol,
        token_x_name: d.tokenX.name,
        token_x_decimals: d.tokenX.decimals,
        token_x_icon: d.tokenX.icon,
        token_y_mint: d.tokenY.mint,
        token_y_symbol: d.tokenY.symbol,
        token_y_name: d.tokenY.name,
        token_y_decimals: d.tokenY.decimals,
        token_y_icon: d.tokenY.icon,
        vault_x: d.vaultX,
        vault_y: d.vaultY,
        pool_state: d.poolState,
        pool_state_raw: d.poolStateRaw,
        oracle_mode: d.oracleMode,
        spread_config_initialized: d.spreadConfigInitialized,
        has_pool_fee: d.hasPoolFee,
        fee_config: d.feeConfig,
        fee_ppm: d.feePpm,
        fee_recipient: d.feeRecipient,
        config_slot: e.slot,
      });
      // The snapshot also read the oracle account: it is as good a source as an update.
      if (d.quotingAuthority !== null) offer('quoting_authority', { quoting_authority: d.quotingAuthority });
      if (d.midpriceQ32 !== null) offer('midprice', { midprice_q32: d.midpriceQ32 });
      if (d.spreadFactorQ32 !== null) offer('spread_factor', { spread_factor_q32: d.spreadFactorQ32 });
      return;
    }
    case 'MidpriceUpdated':
      offer('quoting_authority', { quoting_authority: e.data.quotingAuthority });
      if (e.data.midpriceQ32 !== null) offer('midprice', { midprice_q32: e.data.midpriceQ32 });
      if (e.data.spreadFactorQ32 !== null) offer('spread_factor', { spread_factor_q32: e.data.spreadFactorQ32 });
      return;
    case 'SwapExecuted':
      offer('vault', { vault_x_amount: e.data.vaultXAfter, vault_y_amount: e.data.vaultYAfter });
      return;
    case 'VaultBalancesChanged':
      offer('vault', { vault_x_amount: e.data.amountX, vault_y_amount: e.data.amountY });
      return;
    case 'FeeSplitChanged':
      offer('fee_split', { fee_split: normaliseSplit(e.data.recipients), fee_split_fee_ppm: e.data.feePpm, fee_split_fee_config: e.data.feeConfig });
      return;
    case 'TokenMetadataChanged':
      return; // applied after the batch's snapshots (createPoolsHandler)
    default:
      assertNever(e);
  }
}

function upsertSql(s: string): string {
  const groups = Object.entries(POOL_GROUPS) as [Group, readonly string[]][];
  const columns = groups.flatMap(([g, cols]) => [...cols, `${g}_pos`]);
  const typeOf = (c: string) => (c.endsWith('_pos') ? 'int8[]' : COLUMN_TYPES[c]);
  const set = groups.flatMap(([g, cols]) => {
    const newer = `(EXCLUDED.${g}_pos IS NOT NULL AND (t.${g}_pos IS NULL OR EXCLUDED.${g}_pos >= t.${g}_pos))`;
    return [...cols, `${g}_pos`].map((c) => `${c} = CASE WHEN ${newer} THEN EXCLUDED.${c} ELSE t.${c} END`);
  });
  return `INSERT INTO ${s}.pools AS t (cluster, pool, ${columns.join(', ')})
    SELECT cluster, pool, ${columns.join(', ')}
      FROM jsonb_to_recordset($1::jsonb) AS x(cluster text, pool text, ${columns.map((c) => `${c} ${typeOf(c)}`).join(', ')})
    ON CONFLICT (cluster, pool) DO UPDATE SET ${set.join(',\n      ')}`;
}

export const poolsProjection: ProjectionDefinition = {
  name: 'pools',
  schema: poolsSchemaV1,
  createHandler: createPoolsHandler,
  refresh: refreshPoolStats24h,
  refreshEveryMs: 2000,
};
