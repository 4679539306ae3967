import { assertNever, type EventOf } from '@hadron/contracts';
import { q32Json } from '@hadron/contracts/read/midprice-sample-json';
import { compareChainPositions, type ChainPosition } from '@hadron/domain';
import type { DeliveredEvent, SqlTx } from '@hadron/platform/event-log/event-log.port';
import { FACT_COLUMN_TYPES, FactColumns } from '../../sql/fact-columns';
import { sqlBucket } from '../../sql/identifiers';
import { numberArray, textArray } from '../../sql/pg-array';
import { assertApplicable } from '../event-checks';

/**
 * What every version of the `midprice` projection does alike (v1 is frozen: the SQL built here
 * for it must not change): pick the oracle facts of a batch, load and save the per-pool carried
 * state, and write points with the last point of each minute and hour. What a point is, and
 * which values it carries, is each version's own.
 */

export type OracleFact = EventOf<'MidpriceUpdated'> | EventOf<'PoolDiscovered'> | EventOf<'PoolConfigChanged'>;

/** The facts of a batch the projection reads, in log order (each checked as every projection does). */
export function oracleFacts(events: readonly DeliveredEvent[]): OracleFact[] {
  const facts: OracleFact[] = [];
  for (const { event } of events) {
    assertApplicable(event);
    switch (event.type) {
      case 'MidpriceUpdated':
      case 'PoolDiscovered':
      case 'PoolConfigChanged':
        facts.push(event);
        break;
      case 'SwapExecuted':
      case 'VaultBalancesChanged':
      case 'FeeSplitChanged':
      case 'TokenMetadataChanged':
        break;
      default:
        assertNever(event);
    }
  }
  return facts;
}

/** A carried value with the chain position it was set at. */
export interface Source {
  value: string | null;
  pos: ChainPosition | null;
}

/** Latest chain position wins; an equal position (same fact delivered again) re-applies the same value. */
export function advance(field: Source, value: string | null | undefined, pos: ChainPosition): void {
  if (value === null || value === undefined) return;
  if (field.pos === null || compareChainPositions(pos, field.pos) >= 0) {
    field.value = value;
    field.pos = pos;
  }
}

export type PoolSources<K extends string> = { cluster: string; pool: string } & Record<K, Source>;

/**
 * The per-pool carried state of one version (table `midprice_state`): each source `K` is stored
 * as the columns `<column>_q32` (the value) and `<column>_pos` (its chain position, int8[4]).
 */
export class CarriedState<K extends string> {
  private readonly loadSql: string;

  constructor(
    private readonly schema: string,
    private readonly columns: Readonly<Record<K, string>>,
  ) {
    const cols = this.keys().flatMap((k) => [`s.${columns[k]}_q32`, `s.${columns[k]}_pos`]);
    this.loadSql = `SELECT s.cluster, s.pool, ${cols.join(', ')}
    FROM ${schema}.midprice_state s JOIN unnest($1::text[], $2::text[]) AS k(cluster, pool) ON s.cluster = k.cluster AND s.pool = k.pool`;
  }

  /** The stored state of every pool of `facts` (empty sources for a pool not seen yet), keyed by `stateKey`. */
  async load(tx: SqlTx, facts: readonly OracleFact[]): Promise<Map<string, PoolSources<K>>> {
    const states = new Map<string, PoolSources<K>>();
    for (const f of facts) {
      const key = stateKey(f);
      if (!states.has(key)) states.set(key, this.empty(f.cluster, f.pool));
    }
    const loaded = await tx.query<Record<string, string | string[] | null>>(this.loadSql, [
      textArray([...states.values()].map((s) => s.cluster)),
      textArray([...states.values()].map((s) => s.pool)),
    ]);
    for (const r of loaded.rows) {
      const st = states.get(`${r.cluster as string} ${r.pool as string}`)!;
      for (const k of this.keys()) {
        const c = this.columns[k];
        (st as Record<K, Source>)[k] = { value: r[`${c}_q32`] as string | null, pos: toPosition(r[`${c}_pos`] as string[] | null) };
      }
    }
    return states;
  }

  /** The states as the JSON parameter of `upsertSql`. */
  toJson(states: Map<string, PoolSources<K>>): string {
    const rows = [...states.values()].map((s) => {
      const row: Record<string, unknown> = { cluster: s.cluster, pool: s.pool };
      for (const k of this.keys()) {
        const src = (s as Record<K, Source>)[k];
        row[`${this.columns[k]}_q32`] = src.value;
        row[`${this.columns[k]}_pos`] = fromPosition(src.pos);
      }
      return row;
    });
    return JSON.stringify(rows);
  }

  /** The statement saving `toJson` (parameter `param`); each column only moves forward in chain position. */
  upsertSql(param: string): string {
    const cols = this.keys().map((k) => this.columns[k]);
    const names = cols.flatMap((c) => [`${c}_q32`, `${c}_pos`]).join(', ');
    const types = cols.map((c) => `${c}_q32 numeric(20,0), ${c}_pos int8[]`).join(',\n                                               ');
    const newer = (c: string) => `(EXCLUDED.${c}_pos IS NOT NULL AND (t.${c}_pos IS NULL OR EXCLUDED.${c}_pos >= t.${c}_pos))`;
    const keep = cols.flatMap((c) => [`${c}_q32`, `${c}_pos`].map((col) => `${col} = CASE WHEN ${newer(c)} THEN EXCLUDED.${col} ELSE t.${col} END`));
    return `
    INSERT INTO ${this.schema}.midprice_state AS t (cluster, pool, ${names})
    SELECT cluster, pool, ${names}
      FROM jsonb_to_recordset(${param}::jsonb) AS x(cluster text, pool text, ${types})
    ON CONFLICT (cluster, pool) DO UPDATE SET
      ${keep.join(',\n      ')}`;
  }

  private keys(): K[] {
    return Object.keys(this.columns) as K[];
  }

  private empty(cluster: string, pool: string): PoolSources<K> {
    const st: Record<string, unknown> = { cluster, pool };
    for (const k of this.keys()) st[k] = { value: null, pos: null };
    return st as PoolSources<K>;
  }
}

export function stateKey(f: { cluster: string; pool: string }): string {
  return `${f.cluster} ${f.pool}`;
}

function toPosition(a: string[] | null): ChainPosition | null {
  return a ? { slot: Number(a[0]), txIndex: Number(a[1]), ixIndex: Number(a[2]), innerIndex: Number(a[3]) } : null;
}

function fromPosition(p: ChainPosition | null): number[] | null {
  return p ? [p.slot, p.txIndex, p.ixIndex, p.innerIndex] : null;
}

/** The points of a batch, as the parameters $1 … $14 of POINTS_INPUT_SQL. */
export class PointColumns {
  private readonly facts = new FactColumns();
  private readonly instruction: string[] = [];
  private readonly sequence: string[] = [];
  private readonly mid: (string | null)[] = [];
  private readonly spread: (string | null)[] = [];
  private readonly midJson: string[] = [];
  private readonly spreadJson: string[] = [];

  /** `numbersJson` (v7): also each point's midprice and spread factor as their JSON (q32Json), POINT_COLUMN_TYPES_V7's last two. */
  constructor(private readonly numbersJson = false) {}

  get size(): number {
    return this.facts.size;
  }

  push(f: EventOf<'MidpriceUpdated'>, pos: ChainPosition, mid: string | null, spread: string | null): void {
    this.facts.push(f, pos);
    this.instruction.push(f.data.instruction);
    this.sequence.push(f.data.sequence);
    this.mid.push(mid);
    this.spread.push(spread);
    if (this.numbersJson) {
      this.midJson.push(q32Json(mid));
      this.spreadJson.push(q32Json(spread));
    }
  }

  params(): string[] {
    return [...this.facts.params(), textArray(this.instruction), numberArray(this.sequence), numberArray(this.mid), numberArray(this.spread)];
  }

  /** The same columns as arrays, in POINT_COLUMN_TYPES' (or POINT_COLUMN_TYPES_V7's) order (for a StagingTable). */
  columns(): (string | number | null)[][] {
    const columns = [...this.facts.columns(), this.instruction, this.sequence, this.mid, this.spread];
    return this.numbersJson ? [...columns, this.midJson, this.spreadJson] : columns;
  }
}

/** The columns of POINTS_INPUT_SQL with their types: the shape of a staged batch of points. */
export const POINT_COLUMN_TYPES: readonly (readonly [string, string])[] = [
  ...FACT_COLUMN_TYPES,
  ['instruction', 'text'],
  ['sequence', 'numeric'],
  ['midprice_q32', 'numeric'],
  ['spread_factor_q32', 'numeric'],
];

/** v7's points: also the JSON of their midprice and spread factor, written by the projector (q32Json), stored by the table. */
export const POINT_COLUMN_TYPES_V7: readonly (readonly [string, string])[] = [...POINT_COLUMN_TYPES, ['midprice_json', 'text'], ['spread_factor_json', 'text']];

/** The points of a batch as `unnest` of $1 … $14: the fact columns ($1 … $10), then instruction, sequence, midprice, spread. */
export const POINTS_INPUT_SQL = `SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::int4[], $8::int4[], $9::int4[],
                         $10::text[], $11::text[], $12::numeric[], $13::numeric[], $14::numeric[])
      AS t(id, cluster, pool, ts, block_time, slot, tx_index, ix_index, inner_index, signature, instruction, sequence,
           midprice_q32, spread_factor_q32)`;

/**
 * One statement: insert the points (a copy is a no-op), then move each new minute's and hour's
 * last point forward, then save the carried state (`stateSql`, reading $15 after the unnest
 * input). Returns `inserted`, the number of new points.
 * `input`: the points' relation, POINTS_INPUT_SQL by default (v1, frozen) or a staged batch (v2, v3).
 * `fiveMinute`: also the last point of every 5 minutes (v3's `midprice_five_minute`).
 * `numbersJson` (v7): the input also has the points' numbers' JSON (POINT_COLUMN_TYPES_V7), inserted with them.
 * `byId` (v2, v3): the unique (cluster, id) is the one conflict arbiter. The primary key holds both
 * columns, so a point conflicting on it conflicts on (cluster, id) too, and one arbiter is one
 * index check per point instead of two. Without it (v1) there is no conflict target: every unique
 * index counts.
 */
export function writePointsSql(s: string, stateSql: string, { input = POINTS_INPUT_SQL, fiveMinute = false, byId = false, numbersJson = false } = {}): string {
  const numbers = numbersJson ? ', midprice_json, spread_factor_json' : '';
  const lastPoint = (table: string, bucketCol: string, from: string, size: number) => `
    ${lastPointsInsert(s, { table, bucketCol, size, from, idCol: 'id' })}
    ON CONFLICT (cluster, pool, ${bucketCol}) DO UPDATE SET
      ts = EXCLUDED.ts, slot = EXCLUDED.slot, tx_index = EXCLUDED.tx_index, ix_index = EXCLUDED.ix_index,
      inner_index = EXCLUDED.inner_index, signature = EXCLUDED.signature, midprice_q32 = EXCLUDED.midprice_q32,
      spread_factor_q32 = EXCLUDED.spread_factor_q32, point_id = EXCLUDED.point_id
    WHERE (EXCLUDED.slot, EXCLUDED.tx_index, EXCLUDED.ix_index, EXCLUDED.inner_index, EXCLUDED.point_id)
        > (m.slot, m.tx_index, m.ix_index, m.inner_index, m.point_id)`;
  return `
  WITH input AS (
    ${input}
  ), ins AS (
    INSERT INTO ${s}.midprice_points (cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature,
                                      instruction, sequence, midprice_q32, spread_factor_q32${numbers})
    SELECT cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, instruction, sequence,
           midprice_q32, spread_factor_q32${numbers} FROM input
    ON CONFLICT ${byId ? '(cluster, id) ' : ''}DO NOTHING
    RETURNING cluster, pool, ts, id, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32
  ), minute_last AS (
    -- The last new point of each minute; the last of each 5 minutes and hour is among them (both are whole minutes).
    SELECT DISTINCT ON (cluster, pool, ${sqlBucket('ts', 60)}) *
      FROM ins ORDER BY cluster, pool, ${sqlBucket('ts', 60)}, ${newestFirst('id')}
  ), minute AS (${lastPoint('midprice_minute', 'minute_start', 'minute_last', 60)}
  ), hourly AS (${lastPoint('midprice_hourly', 'hour_start', 'minute_last', 3600)}${
    fiveMinute
      ? `
  ), five_minute AS (${lastPoint('midprice_five_minute', 'five_minute_start', 'minute_last', 300)}`
      : ''
  }
  ), state AS (${stateSql}
  )
  SELECT count(*)::int AS inserted FROM ins`;
}

/** Points (or last points, `idCol` = point_id) newest first by chain position: the order a bucket's last point is picked in. */
export const newestFirst = (idCol: string): string => `slot DESC, tx_index DESC, ix_index DESC, inner_index DESC, ${idCol} DESC`;

/**
 * The INSERT of the last point (newest first) of each `size`-second bucket among the rows of
 * `from` (a relation of points, or of last points of a finer bucket, whose id column is `idCol`)
 * into `table` (aliased `m`). The batches' statement (`writePointsSql`) adds its ON CONFLICT; a
 * replay's finish (midprice.projection.ts) fills the emptied tables with it, set-based.
 */
export function lastPointsInsert(
  s: string,
  { table, bucketCol, size, from, idCol }: { table: string; bucketCol: string; size: number; from: string; idCol: string },
): string {
  return `INSERT INTO ${s}.${table} AS m (cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature,
                                    midprice_q32, spread_factor_q32, point_id)
    SELECT DISTINCT ON (cluster, pool, bucket) cluster, pool, bucket, ts, slot, tx_index, ix_index, inner_index, signature,
           midprice_q32, spread_factor_q32, ${idCol}
      FROM (SELECT *, ${sqlBucket('ts', size)} AS bucket FROM ${from}) x
     ORDER BY cluster, pool, bucket, ${newestFirst(idCol)}`;
}
