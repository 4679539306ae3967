import { assertNever, type EventOf } from '@hadron/contracts';
import { chainPosition, normaliseSplit, valueSwap } from '@hadron/domain';
import type { BatchHandler } from '@hadron/platform/event-log/event-log.port';
import type { ProjectionDefinition } from '../../projection';
import { BatchIds, refuseChangedDuplicates } from '../../sql/duplicates';
import { sqlBucket } from '../../sql/identifiers';
import { boolArray, numberArray, textArray } from '../../sql/pg-array';
import { FactColumns } from '../../sql/fact-columns';
import { assertApplicable, effectiveTime } from '../event-checks';
import { LAST_COLUMNS, POOL_TOTALS_COLUMNS as TOTALS, RECIPIENT_TOTALS_COLUMNS, swapsSchemaV1Served, swapsSchemaV2Served, swapsSchemaV3 } from './swaps.schema';

/** What must be equal for two copies of one swap to be the same fact. */
const SWAP_IDENTITY = [
  'block_time',
  'slot',
  'tx_index',
  'ix_index',
  'inner_index',
  'signature',
  'side',
  'trader',
  'amount_in',
  'amount_in_to_vault',
  'amount_out',
  'fee_x_raw',
  'fee_y_raw',
  'midprice_q32',
  '$.split_recipients::text[]',
  '$.split_ppm::int4[]',
];

interface Variant {
  /** v1, v2: pool minute rollup and per-recipient hourly rollup. */
  minuteAndRecipientHourly: boolean;
  /** v2: per-recipient minute rollup. */
  recipientMinute: boolean;
  /** v3: running totals per second and day (pool and recipient), and each pool's recipients. */
  running: boolean;
  /** v2, v3: a copy of an event id with another payload is refused (the unique (cluster, id) keeps it out). */
  refuseChangedCopies: boolean;
}
const V1: Variant = { minuteAndRecipientHourly: true, recipientMinute: false, running: false, refuseChangedCopies: false };
const V2: Variant = { minuteAndRecipientHourly: true, recipientMinute: true, running: false, refuseChangedCopies: true };
const V3: Variant = { minuteAndRecipientHourly: false, recipientMinute: false, running: true, refuseChangedCopies: true };

/**
 * `swaps` (v3): swap facts (with their fee split), rollups (pool × hour / UTC day) and running
 * totals (pool and recipient × second / UTC day, swaps.schema.ts). One SQL statement per batch
 * writes the facts and buckets: the swaps are inserted with ON CONFLICT DO NOTHING and every
 * bucket is incremented only from the rows that statement actually inserted (`RETURNING`), so a
 * redelivered batch or a duplicated event adds nothing: v2 and v3 key that by event id (unique
 * (cluster, id)) whatever the block time of a copy, and refuse a copy whose payload differs as a
 * poison event. A second statement then recomputes the running totals the batch changed.
 * Recipient shares are computed in SQL exactly as libs/domain `feeShares` defines them:
 * fee × ppm, only for fee-bearing swaps that carried a split.
 */
export function createSwapsHandler(schema: string): BatchHandler {
  return swapsHandler(schema, V3);
}

/** v2 (released; frozen tables): v1 plus the per-recipient minute rollup and refusal of changed copies. */
export function createSwapsHandlerV2(schema: string): BatchHandler {
  return swapsHandler(schema, V2);
}

/** v1 (released; frozen): no per-recipient minute rollup, idempotent by (cluster, pool, ts, id). */
export function createSwapsHandlerV1(schema: string): BatchHandler {
  return swapsHandler(schema, V1);
}

function swapsHandler(schema: string, variant: Variant): BatchHandler {
  const sql = writeSql(schema, variant);
  const runningSql = variant.running ? recomputeRunningSql(schema) : '';
  return async (events, tx) => {
    const b = new SwapBatch(variant.refuseChangedCopies, variant.running);
    for (const { event } of events) {
      assertApplicable(event);
      switch (event.type) {
        case 'SwapExecuted':
          b.add(event);
          break;
        case 'PoolDiscovered':
        case 'PoolConfigChanged':
        case 'MidpriceUpdated':
        case 'VaultBalancesChanged':
        case 'FeeSplitChanged':
        case 'TokenMetadataChanged':
          break; // a swap carries everything needed to value it, including its fee split
        default:
          assertNever(event);
      }
    }
    if (b.size === 0) return;
    const params = b.params();
    const { rows } = await tx.query<{ inserted: number }>(sql, params);
    if (variant.refuseChangedCopies && rows[0].inserted < b.size) await refuseChangedDuplicates(tx, `${schema}.swaps`, inputSql(), SWAP_IDENTITY, params);
    // The statement above added each new swap to its second's and day's own totals; now every
    // running total from the earliest changed second of each day (and the earliest changed day of
    // each pool) on is recomputed. In a replay in chain order that is the batch's own rows.
    if (variant.running && rows[0].inserted > 0) await tx.query(runningSql, b.running!.params());
  };
}

class SwapBatch {
  private readonly seen = new Set<string>();
  private readonly ids = new BatchIds();
  private readonly s = {
    side: [] as string[],
    trader: [] as string[],
    amountIn: [] as string[],
    toVault: [] as string[],
    amountOut: [] as string[],
    feeX: [] as string[],
    feeY: [] as string[],
    decimalsX: [] as number[],
    decimalsY: [] as number[],
    mid: [] as (string | null)[],
    volume: [] as string[],
    spread: [] as string[],
    fee: [] as string[],
    priced: [] as boolean[],
    tracked: [] as boolean[],
    /** Per swap, an array literal (or null): passed as text and cast per row, unnest cannot take 2-D arrays. */
    recipients: [] as (string | null)[],
    ppm: [] as (string | null)[],
  };

  private readonly facts = new FactColumns();
  readonly running: RunningKeys | undefined;

  constructor(
    private readonly refuseChangedCopies: boolean,
    running: boolean,
  ) {
    this.running = running ? new RunningKeys() : undefined;
  }

  get size(): number {
    return this.facts.size;
  }

  add(e: EventOf<'SwapExecuted'>): void {
    const d = e.data;
    if (this.refuseChangedCopies) {
      if (!this.ids.first(e.id, JSON.stringify([e.blockTime, e.slot, e.txIndex, e.ixIndex, e.innerIndex, e.signature, d]))) return;
    } else {
      if (this.seen.has(e.id)) return;
      this.seen.add(e.id);
    }
    const value = valueSwap({
      side: d.side,
      amountIn: BigInt(d.amountIn),
      amountInToVault: BigInt(d.amountInToVault),
      amountOut: BigInt(d.amountOut),
      feeRaw: BigInt(d.feeRaw),
      midpriceQ32: d.midpriceQ32 === null ? null : BigInt(d.midpriceQ32),
    });
    this.facts.push(e, chainPosition(e));
    const s = this.s;
    s.side.push(d.side);
    s.trader.push(d.trader);
    s.amountIn.push(d.amountIn);
    s.toVault.push(d.amountInToVault);
    s.amountOut.push(d.amountOut);
    s.feeX.push(value.feeXRaw.toString());
    s.feeY.push(value.feeYRaw.toString());
    s.decimalsX.push(d.decimalsX);
    s.decimalsY.push(d.decimalsY);
    s.mid.push(d.midpriceQ32);
    s.volume.push(value.volumeQ32.toString());
    s.spread.push(value.spreadQ32.toString());
    s.fee.push(value.protocolFeeQ32.toString());
    s.priced.push(value.priced);
    s.tracked.push(d.feeSplit !== null);
    const split = d.feeSplit === null ? null : normaliseSplit(d.feeSplit);
    s.recipients.push(split === null ? null : textArray(split.map((w) => w.recipient)));
    s.ppm.push(split === null ? null : numberArray(split.map((w) => w.ppm)));
    if (this.running) {
      const ts = effectiveTime(e);
      this.running.pool(e.cluster, e.pool, ts);
      // Shares exist for fee-bearing swaps that carried a split (the SQL's `shares`, libs/domain feeShares).
      if (split !== null && (value.feeXRaw > 0n || value.feeYRaw > 0n)) for (const w of split) this.running.recipient(e.cluster, e.pool, w.recipient, ts);
    }
  }

  params(): string[] {
    const s = this.s;
    const [t, n, b] = [textArray, numberArray, boolArray];
    return [
      ...this.facts.params(),
      t(s.side),
      t(s.trader),
      n(s.amountIn),
      n(s.toVault),
      n(s.amountOut),
      n(s.feeX),
      n(s.feeY),
      n(s.decimalsX),
      n(s.decimalsY),
      n(s.mid),
      n(s.volume),
      n(s.spread),
      n(s.fee),
      b(s.priced),
      b(s.tracked),
      t(s.recipients),
      t(s.ppm),
    ];
  }
}

const DAY = 86_400;
const dayOf = (ts: number): number => ts - (((ts % DAY) + DAY) % DAY);

/**
 * Where a batch may have changed running totals: per (pool[, recipient], day) its earliest second,
 * and per pool[, recipient] its earliest day (keys of swaps a redelivery did not insert are
 * harmless: recomputing is idempotent).
 */
class RunningKeys {
  private readonly poolSeconds = new Map<string, [string, string, number]>();
  private readonly poolDays = new Map<string, [string, string, number]>();
  private readonly recipientSeconds = new Map<string, [string, string, string, number]>();
  private readonly recipientDays = new Map<string, [string, string, string, number]>();

  pool(cluster: string, pool: string, ts: number): void {
    const day = dayOf(ts);
    earliest(this.poolSeconds, `${cluster} ${pool} ${day}`, [cluster, pool, ts]);
    earliest(this.poolDays, `${cluster} ${pool}`, [cluster, pool, day]);
  }

  recipient(cluster: string, pool: string, recipient: string, ts: number): void {
    const day = dayOf(ts);
    earliest(this.recipientSeconds, `${cluster} ${pool} ${recipient} ${day}`, [cluster, pool, recipient, ts]);
    earliest(this.recipientDays, `${cluster} ${pool} ${recipient}`, [cluster, pool, recipient, day]);
  }

  /** $1..$3 pool seconds, $4..$6 pool days, $7..$10 recipient seconds, $11..$14 recipient days. */
  params(): string[] {
    const cols = <T extends unknown[]>(m: Map<string, T>, n: number) => Array.from({ length: n }, (_, i) => [...m.values()].map((r) => r[i]));
    const [t, n] = [textArray, numberArray];
    const [sc, sp, st] = cols(this.poolSeconds, 3);
    const [dc, dp, dd] = cols(this.poolDays, 3);
    const [rsc, rsp, rsr, rst] = cols(this.recipientSeconds, 4);
    const [rdc, rdp, rdr, rdd] = cols(this.recipientDays, 4);
    return [
      t(sc as string[]),
      t(sp as string[]),
      n(st as number[]),
      t(dc as string[]),
      t(dp as string[]),
      n(dd as number[]),
      t(rsc as string[]),
      t(rsp as string[]),
      t(rsr as string[]),
      n(rst as number[]),
      t(rdc as string[]),
      t(rdp as string[]),
      t(rdr as string[]),
      n(rdd as number[]),
    ];
  }
}

function earliest<T extends unknown[]>(m: Map<string, T>, key: string, row: T): void {
  const at = row.length - 1;
  const before = m.get(key);
  if (before === undefined || (row[at] as number) < (before[at] as number)) m.set(key, row);
}

/**
 * Recomputes `run_*` (swaps.schema.ts, running totals): for each changed (pool[, recipient], day)
 * the seconds from its earliest changed one to the day's end, and for each changed pool[, recipient]
 * the days from its earliest changed one on: base (the last row before, in the same day for
 * seconds) + the running sum of the rows' own totals.
 */
function recomputeRunningSql(s: string): string {
  const day = (v: string) => sqlBucket(v, DAY);
  /** Rows of `table` in `changed` (keys + `start`) from `start` on (below `below`), recomputed over the last row before `start` (at or above `floor`). */
  const recompute = (
    table: string,
    keys: readonly string[],
    bucket: string,
    own: readonly string[],
    changed: string,
    range?: { below: string; floor: string },
  ) => {
    const on = (x: string, y: string) => keys.map((k) => `${x}.${k} = ${y}.${k}`).join(' AND ');
    return `
    UPDATE ${s}.${table} r SET ${own.map((c) => `run_${c} = x.run_${c}`).join(', ')}
      FROM (SELECT ${keys.map((k) => `f.${k}`).join(', ')}, f.${bucket}, ${own.map((c) => `coalesce(b.run_${c}, 0) + sum(f.${c}) OVER w AS run_${c}`).join(', ')}
              FROM ${changed} a
              JOIN ${s}.${table} f ON ${on('f', 'a')} AND f.${bucket} >= a.start${range ? ` AND f.${bucket} < ${range.below}` : ''}
              LEFT JOIN LATERAL (SELECT ${own.map((c) => `p.run_${c}`).join(', ')} FROM ${s}.${table} p
                                  WHERE ${on('p', 'a')} AND p.${bucket} < a.start${range ? ` AND p.${bucket} >= ${range.floor}` : ''}
                                  ORDER BY p.${bucket} DESC LIMIT 1) b ON true
            WINDOW w AS (PARTITION BY ${keys.map((k) => `f.${k}`).join(', ')}, a.start ORDER BY f.${bucket})) x
     WHERE ${on('r', 'x')} AND r.${bucket} = x.${bucket}`;
  };
  const inDay = { below: `${day('a.start')} + ${DAY}`, floor: day('a.start') };
  const [pool, recipient] = [
    ['cluster', 'pool'],
    ['cluster', 'pool', 'recipient'],
  ];
  const R = RECIPIENT_TOTALS_COLUMNS;
  return `
  WITH pool_seconds AS (SELECT * FROM unnest($1::text[], $2::text[], $3::int8[]) AS a(cluster, pool, start)
  ), pool_days AS (SELECT * FROM unnest($4::text[], $5::text[], $6::int8[]) AS a(cluster, pool, start)
  ), recipient_seconds AS (SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::int8[]) AS a(cluster, pool, recipient, start)
  ), recipient_days AS (SELECT * FROM unnest($11::text[], $12::text[], $13::text[], $14::int8[]) AS a(cluster, pool, recipient, start)
  ), s1 AS (${recompute('fee_running_second', pool, 'ts', TOTALS, 'pool_seconds', inDay)}
  ), s2 AS (${recompute('fee_running_day', pool, 'day_start', TOTALS, 'pool_days')}
  ), s3 AS (${recompute('fee_recipient_running_second', recipient, 'ts', R, 'recipient_seconds', inDay)}
  ), s4 AS (${recompute('fee_recipient_running_day', recipient, 'day_start', R, 'recipient_days')}
  )
  SELECT 1`;
}

function inputSql(): string {
  return `SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[], $6::int8[], $7::int4[], $8::int4[], $9::int4[],
                         $10::text[], $11::text[], $12::text[], $13::numeric[], $14::numeric[], $15::numeric[], $16::numeric[],
                         $17::numeric[], $18::int2[], $19::int2[], $20::numeric[], $21::numeric[], $22::numeric[], $23::numeric[],
                         $24::bool[], $25::bool[], $26::text[], $27::text[])
      AS t(id, cluster, pool, ts, block_time, slot, tx_index, ix_index, inner_index, signature, side, trader, amount_in,
           amount_in_to_vault, amount_out, fee_x_raw, fee_y_raw, decimals_x, decimals_y, midprice_q32, volume_q32, spread_q32,
           protocol_fee_q32, priced, split_tracked, split_recipients, split_ppm)`;
}

function writeSql(s: string, variant: Variant): string {
  /** `run_*` columns start at 0 in a new row; the running-totals statement sets them (recomputeRunningSql). */
  const runZero = (running: boolean, cols: readonly string[]) => ({
    cols: running ? cols.map((c) => `, run_${c}`).join('') : '',
    zeros: running ? cols.map(() => ', 0').join('') : '',
  });
  const rollup = (table: string, bucketCol: string, size: number, running = false) => {
    const z = runZero(running, TOTALS);
    return `
    INSERT INTO ${s}.${table} AS r (cluster, pool, ${bucketCol}, ${TOTALS.join(', ')}${z.cols})
    SELECT cluster, pool, ${size === 1 ? 'ts' : sqlBucket('ts', size)}, sum(volume_q32), sum(spread_q32), sum(protocol_fee_q32),
           sum(fee_x_raw), sum(fee_y_raw), count(*), count(*) FILTER (WHERE NOT priced)${z.zeros}
      FROM ins GROUP BY 1, 2, 3
    ON CONFLICT (cluster, pool, ${bucketCol}) DO UPDATE SET ${TOTALS.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')}`;
  };
  const lastPos = (t: string) => `ARRAY[${t}.last_slot, ${t}.last_tx_index, ${t}.last_ix_index, ${t}.last_inner_index]::int8[]`;
  const recipientRollup = (table: string, bucketCol: string, size: number, running = false) => {
    const z = runZero(running, RECIPIENT_TOTALS_COLUMNS);
    return `
    INSERT INTO ${s}.${table} AS r (cluster, pool, ${bucketCol}, recipient, ${RECIPIENT_TOTALS_COLUMNS.join(', ')}, ${LAST_COLUMNS.join(', ')}${z.cols})
    SELECT cluster, pool, bucket, recipient, x, y, v, n, last[5], last[1], last[2], last[3], last[4]${z.zeros}
      FROM (SELECT cluster, pool, ${size === 1 ? 'ts' : sqlBucket('ts', size)} AS bucket, recipient, sum(fee_x_raw_x1e6) AS x,
                   sum(fee_y_raw_x1e6) AS y, sum(fee_value_q32_x1e6) AS v, count(*) AS n,
                   max(ARRAY[slot, tx_index, ix_index, inner_index, ppm]::int8[]) AS last
              FROM shares GROUP BY 1, 2, 3, 4) a
    ON CONFLICT (cluster, pool, recipient, ${bucketCol}) DO UPDATE SET
      ${RECIPIENT_TOTALS_COLUMNS.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')},
      ${LAST_COLUMNS.map((c) => `${c} = CASE WHEN ${lastPos('EXCLUDED')} >= ${lastPos('r')} THEN EXCLUDED.${c} ELSE r.${c} END`).join(',\n      ')}`;
  };
  const parts: string[] = [`hourly AS (${rollup('fee_rollup_hourly', 'hour_start', 3600)}\n  )`];
  if (variant.minuteAndRecipientHourly) parts.push(`minute AS (${rollup('fee_rollup_minute', 'minute_start', 60)}\n  )`);
  parts.push(`daily AS (
    INSERT INTO ${s}.volume_daily AS r (cluster, pool, day_start, volume_q32, spread_q32, protocol_fee_q32, fees_q32, swap_count)
    SELECT cluster, pool, ${sqlBucket('ts', 86400)}, sum(volume_q32), sum(spread_q32), sum(protocol_fee_q32),
           sum(spread_q32) + sum(protocol_fee_q32), count(*)
      FROM ins GROUP BY 1, 2, 3
    ON CONFLICT (cluster, pool, day_start) DO UPDATE SET volume_q32 = r.volume_q32 + EXCLUDED.volume_q32,
      spread_q32 = r.spread_q32 + EXCLUDED.spread_q32, protocol_fee_q32 = r.protocol_fee_q32 + EXCLUDED.protocol_fee_q32,
      fees_q32 = r.fees_q32 + EXCLUDED.fees_q32, swap_count = r.swap_count + EXCLUDED.swap_count
  )`);
  parts.push(`shares AS (
    SELECT i.cluster, i.pool, i.ts, i.slot, i.tx_index, i.ix_index, i.inner_index, w.recipient, w.ppm,
           i.fee_x_raw * w.ppm AS fee_x_raw_x1e6, i.fee_y_raw * w.ppm AS fee_y_raw_x1e6,
           i.protocol_fee_q32 * w.ppm AS fee_value_q32_x1e6
      FROM ins i CROSS JOIN LATERAL unnest(i.split_recipients, i.split_ppm) AS w(recipient, ppm)
     WHERE i.split_recipients IS NOT NULL AND (i.fee_x_raw > 0 OR i.fee_y_raw > 0)
  )`);
  if (variant.minuteAndRecipientHourly) parts.push(`recipients AS (${recipientRollup('fee_recipient_hourly', 'hour_start', 3600)}\n  )`);
  if (variant.recipientMinute) parts.push(`recipients_minute AS (${recipientRollup('fee_recipient_minute', 'minute_start', 60)}\n  )`);
  if (variant.running) {
    parts.push(
      `running_second AS (${rollup('fee_running_second', 'ts', 1, true)}\n  )`,
      `running_day AS (${rollup('fee_running_day', 'day_start', 86400, true)}\n  )`,
      `recipient_running_second AS (${recipientRollup('fee_recipient_running_second', 'ts', 1, true)}\n  )`,
      `recipient_running_day AS (${recipientRollup('fee_recipient_running_day', 'day_start', 86400, true)}\n  )`,
      `pool_recipients AS (
    INSERT INTO ${s}.fee_recipients (cluster, pool, recipient) SELECT DISTINCT cluster, pool, recipient FROM shares ON CONFLICT DO NOTHING
  )`,
    );
  }
  return `
  WITH input AS (${inputSql()}
  ), ins AS (
    -- No conflict target: the primary key (and in v2 the unique (cluster, id)) make a copy a no-op.
    INSERT INTO ${s}.swaps (cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, side, trader,
                            amount_in, amount_in_to_vault, amount_out, fee_x_raw, fee_y_raw, decimals_x, decimals_y, midprice_q32,
                            volume_q32, spread_q32, protocol_fee_q32, priced, split_tracked, split_recipients, split_ppm)
    SELECT cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, side, trader,
           amount_in, amount_in_to_vault, amount_out, fee_x_raw, fee_y_raw, decimals_x, decimals_y, midprice_q32,
           volume_q32, spread_q32, protocol_fee_q32, priced, split_tracked, split_recipients::text[], split_ppm::int4[]
      FROM input
    ON CONFLICT DO NOTHING
    RETURNING cluster, pool, ts, id, slot, tx_index, ix_index, inner_index, volume_q32, spread_q32, protocol_fee_q32,
              fee_x_raw, fee_y_raw, priced, split_recipients, split_ppm
  ), ${parts.join(', ')}
  SELECT count(*)::int AS inserted FROM ins`;
}

/** Released v1, still able to consume its build while a newer version replays. */
export const swapsProjectionV1: ProjectionDefinition = {
  name: 'swaps',
  schema: swapsSchemaV1Served,
  eventTypes: ['SwapExecuted'],
  createHandler: createSwapsHandlerV1,
};

/** Released v2, still able to consume its build while v3 replays. */
export const swapsProjectionV2: ProjectionDefinition = {
  name: 'swaps',
  schema: swapsSchemaV2Served,
  eventTypes: ['SwapExecuted'],
  createHandler: createSwapsHandlerV2,
};

export const swapsProjection: ProjectionDefinition = {
  name: 'swaps',
  schema: swapsSchemaV3,
  eventTypes: ['SwapExecuted'], // a swap carries everything needed to value it, including its fee split
  createHandler: createSwapsHandler,
  previousVersions: [swapsProjectionV2, swapsProjectionV1],
};
