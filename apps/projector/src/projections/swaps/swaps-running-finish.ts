import { feeShares } from '@hadron/domain';
import { copyField, copyFrom, copyTo } from '@hadron/platform/database/copy-from';
import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import type { ClientBase } from 'pg';
import type { ApartGroup, RunApart } from '../../projection';
import { CopyPipe } from '../../sql/copy-pipe';
import { quoteIdent, sqlBucket } from '../../sql/identifiers';
import { RUNNING_TABLE_COLUMNS, swapsSchemaV3 } from './swaps.schema';

/**
 * A v3 build's running totals written from its swaps once its replay has caught up (the replay
 * wrote the swaps alone): one pass over the swaps in (cluster, pool, UTC day, ts) order. Postgres
 * streams them (COPY TO) with each pool's running sums within the day (a window, the one sort);
 * Node folds them into the second and day rows of the pool and of each fee recipient (shares by
 * libs/domain `feeShares`, their sums in bigint); four more connections COPY those rows into the
 * tables as they come. The same rows as the derived views (`runningViewsFromSwaps`, which say what
 * each column is). Measured on the replay bench's 350,055 swaps: the SQL finish it replaced
 * (grouped and windowed per table) took 10.0–10.7 s and about 13.5 s of Postgres CPU.
 */

const DAY = 86_400;
/** The UTC day of a block time, as `sqlBucket(ts, 86400)` computes it (negative times too). */
const dayOf = (ts: number) => ts - (((ts % DAY) + DAY) % DAY);

/**
 * What the pass reads of each swap, in the order the fold expects, with the pool's running sums
 * within the UTC day through the swap's second (a window over the day's swaps by block time: the
 * swaps of one second are peers, so each has its second's sums). The window's order is the order
 * read: one sort.
 */
const READ = (s: string) => {
  const money = ['volume_q32', 'spread_q32', 'protocol_fee_q32', 'fee_x_raw', 'fee_y_raw'];
  return `SELECT cluster, pool, ts, ${money.join(', ')}, priced,
    slot, tx_index, ix_index, inner_index, array_to_json(split_recipients), array_to_json(split_ppm), ${money.map((c) => `sum(${c}) OVER w`).join(', ')}
    FROM ${s}.swaps WINDOW w AS (PARTITION BY cluster, pool, ${sqlBucket('ts', DAY)} ORDER BY ts)
    ORDER BY cluster, pool, ${sqlBucket('ts', DAY)}, ts`;
};
/** Field indexes after the pool key (cluster, pool). */
const F = { ts: 0, money: 1, protocolFee: 3, feeX: 4, feeY: 5, priced: 6, slot: 7, recipients: 11, ppm: 12, running: 13 } as const;
const POOL_SUMS = 5;
const SHARE_SUMS = 3;

/** A swap's position and its recipient's ppm: the order `last_*` keeps the greatest of (ARRAY[slot, tx, ix, inner, ppm] in SQL). */
interface Last {
  slot: bigint;
  rest: [tx: number, ix: number, inner: number, ppm: number];
}
function later(a: Last, b: Last | undefined): boolean {
  if (b === undefined || a.slot !== b.slot) return b === undefined || a.slot > b.slot;
  for (let i = 0; i < 4; i++) if (a.rest[i] !== b.rest[i]) return a.rest[i] > b.rest[i];
  return false;
}

/**
 * A pool's second and day rows. Its running sums within the day come from Postgres's window (the
 * last fields read), so a second of one swap needs no arithmetic here; a day's own totals are its
 * last second's running sums, and the running sums over the pool's history add up the days.
 */
class PoolRunning {
  private count = 0;
  private unpriced = 0;
  /** The second's money columns as read while it holds one swap; summed once it holds more. */
  private first: string[] | undefined;
  private sums: bigint[] | undefined;
  /** Running within the day through the current second, as read. */
  private running: string[] = [];
  private dayCount = 0;
  private dayUnpriced = 0;
  private readonly history = new Array<bigint>(POOL_SUMS).fill(0n);
  private historyCount = 0;
  private historyUnpriced = 0;

  constructor(
    /** The key's columns as COPY text. */
    readonly key: string,
  ) {}

  add(f: readonly string[]): void {
    const money = f.slice(F.money, F.money + POOL_SUMS);
    if (this.count === 0) this.first = money;
    else {
      this.sums ??= this.first!.map((v) => BigInt(v));
      for (let i = 0; i < POOL_SUMS; i++) this.sums[i] += BigInt(money[i]);
    }
    this.count++;
    this.dayCount++;
    if (f[F.priced] === 'f') {
      this.unpriced++;
      this.dayUnpriced++;
    }
    this.running = f.slice(F.running, F.running + POOL_SUMS);
  }

  /** The second's row (own totals, running within the day), or undefined when it held no swap. */
  endSecond(ts: string): string | undefined {
    if (this.count === 0) return undefined;
    const own = (this.sums ?? this.first!).join('\t');
    const line = `${this.key}\t${ts}\t${own}\t${this.count}\t${this.unpriced}\t${this.running.join('\t')}\t${this.dayCount}\t${this.dayUnpriced}\n`;
    this.count = 0;
    this.unpriced = 0;
    this.first = undefined;
    this.sums = undefined;
    return line;
  }

  /** The day's row (own totals, running over the pool's history), or undefined when it held no swap. */
  endDay(day: number): string | undefined {
    if (this.dayCount === 0) return undefined;
    for (let i = 0; i < POOL_SUMS; i++) this.history[i] += BigInt(this.running[i]);
    this.historyCount += this.dayCount;
    this.historyUnpriced += this.dayUnpriced;
    const line = `${this.key}\t${day}\t${this.running.join('\t')}\t${this.dayCount}\t${this.dayUnpriced}\t${this.history.join('\t')}\t${this.historyCount}\t${this.historyUnpriced}\n`;
    this.dayCount = 0;
    this.dayUnpriced = 0;
    return line;
  }
}

/** A recipient's share totals in a bucket: the money columns (bigint), the swap count, the latest split swap. */
class Shares {
  readonly sums = new Array<bigint>(SHARE_SUMS).fill(0n);
  count = 0;
  last: Last | undefined;
  add(o: Shares): void {
    for (let i = 0; i < SHARE_SUMS; i++) this.sums[i] += o.sums[i];
    this.count += o.count;
    if (o.last !== undefined && later(o.last, this.last)) this.last = o.last;
  }
  clear(): void {
    this.sums.fill(0n);
    this.count = 0;
    this.last = undefined;
  }
}

/** A pool's recipient's second and day rows: the current second, its UTC day so far, its history through the last day ended. */
class RecipientRunning {
  private readonly second = new Shares();
  /** Running within the current day (its own totals once it ends), through the last swap read. */
  private readonly inDay = new Shares();
  private readonly history = new Shares();

  constructor(
    /** The key's columns as COPY text. */
    readonly key: string,
  ) {}

  get idle(): boolean {
    return this.second.count === 0;
  }

  /** Counts one share (its money columns, the swap's position and the ppm for `last_*`) in the second and the day. */
  add(values: readonly bigint[], last: Last): void {
    for (const t of [this.second, this.inDay]) {
      for (let i = 0; i < SHARE_SUMS; i++) t.sums[i] += values[i];
      t.count++;
      if (later(last, t.last)) t.last = last;
    }
  }

  /** The second's row (own totals, running within the day), or undefined when it held no share. */
  endSecond(ts: string): string | undefined {
    const s = this.second;
    if (s.count === 0) return undefined;
    const line = this.line(ts, s, this.inDay);
    s.clear();
    return line;
  }

  /** The day's row (own totals, running over the recipient's history in the pool), or undefined when it held no share. */
  endDay(day: number): string | undefined {
    const d = this.inDay;
    if (d.count === 0) return undefined;
    this.history.add(d);
    const line = this.line(String(day), d, this.history);
    d.clear();
    return line;
  }

  private line(bucket: string, own: Shares, running: Shares): string {
    const l = own.last!;
    return `${this.key}\t${bucket}\t${own.sums.join('\t')}\t${own.count}\t${l.rest[3]}\t${l.slot}\t${l.rest[0]}\t${l.rest[1]}\t${l.rest[2]}\t${running.sums.join('\t')}\t${running.count}\n`;
  }
}

/** Where the fold's rows go: the four running tables, as COPY text. */
interface Outputs {
  poolSeconds: CopyPipe;
  poolDays: CopyPipe;
  recipientSeconds: CopyPipe;
  recipientDays: CopyPipe;
}

/**
 * Folds the swaps, in (cluster, pool, ts) order, into the second and day rows of each pool and of
 * each of its fee recipients, as COPY lines in the tables' column order (RUNNING_TABLE_COLUMNS).
 */
class RunningFold {
  private pool: PoolRunning | undefined;
  private recipients = new Map<string, RecipientRunning>();
  /** The recipients with a share in the current second. */
  private touched: RecipientRunning[] = [];
  private ts = '';
  private tsDay = 0;
  /** Each pool's recipients (cluster, pool, recipient as COPY text): `fee_recipients`. */
  readonly recipientKeys: string[] = [];
  private wait: Promise<void> | undefined;

  constructor(private readonly out: Outputs) {}

  /** Folds one swap (a COPY line of READ); a promise when an output is full: the reader pauses until it settles. */
  row(line: Buffer): Promise<void> | undefined {
    this.wait = undefined;
    const text = line.toString('utf8', 0, line.length - 1);
    const cut = text.indexOf('\t', text.indexOf('\t') + 1);
    const key = text.slice(0, cut);
    const f = text.slice(cut + 1).split('\t');
    const ts = f[F.ts];
    if (key !== this.pool?.key || ts !== this.ts) {
      this.endSecond();
      const tsDay = dayOf(Number(ts));
      if (key !== this.pool?.key || tsDay !== this.tsDay) this.endDay();
      if (key !== this.pool?.key) {
        this.pool = new PoolRunning(key);
        this.recipients = new Map();
      }
      this.ts = ts;
      this.tsDay = tsDay;
    }
    this.pool!.add(f);
    if (f[F.recipients] !== '\\N') this.share(key, f);
    return this.wait;
  }

  /** Writes the last second and day. */
  end(): void {
    this.endSecond();
    this.endDay();
  }

  /** Each recipient's share of a split swap, as libs/domain `feeShares` defines it (none for a zero fee). */
  private share(key: string, f: readonly string[]): void {
    const recipients = JSON.parse(unescapeCopy(f[F.recipients])) as string[];
    const ppm = JSON.parse(f[F.ppm]) as number[];
    const shares = feeShares(
      { feeXRaw: BigInt(f[F.feeX]), feeYRaw: BigInt(f[F.feeY]), protocolFeeQ32: BigInt(f[F.protocolFee]) },
      recipients.map((recipient, i) => ({ recipient, ppm: ppm[i] })),
    );
    if (shares.length === 0) return;
    const slot = BigInt(f[F.slot]);
    const [tx, ix, inner] = [f[F.slot + 1], f[F.slot + 2], f[F.slot + 3]].map(Number);
    for (const s of shares) {
      let r = this.recipients.get(s.recipient);
      if (r === undefined) {
        r = new RecipientRunning(`${key}\t${copyField(s.recipient)}`);
        this.recipients.set(s.recipient, r);
        this.recipientKeys.push(r.key);
      }
      if (r.idle) this.touched.push(r);
      r.add([s.feeXRawX1e6, s.feeYRawX1e6, s.feeValueQ32X1e6], { slot, rest: [tx, ix, inner, s.ppm] });
    }
  }

  private endSecond(): void {
    if (this.pool === undefined) return;
    this.write(this.out.poolSeconds, this.pool.endSecond(this.ts));
    for (const r of this.touched) this.write(this.out.recipientSeconds, r.endSecond(this.ts));
    this.touched = [];
  }

  private endDay(): void {
    if (this.pool === undefined) return;
    this.write(this.out.poolDays, this.pool.endDay(this.tsDay));
    for (const r of this.recipients.values()) this.write(this.out.recipientDays, r.endDay(this.tsDay));
  }

  private write(pipe: CopyPipe, line: string | undefined): void {
    if (line !== undefined) this.wait = pipe.write(line) ?? this.wait;
  }
}

/** A field of COPY text as it was stored (the format's backslash escapes undone). */
function unescapeCopy(field: string): string {
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', b: '\b', f: '\f', v: '\v' })[c] ?? c);
}

/**
 * Empties `table` and fills it by `fill` without its primary key, then adds the key back as it was
 * (same name and definition), in the caller's transaction: building the index once, sorted, cost
 * less than maintaining it row by row (332,000 second rows: a COPY of 2.6 s against 1.6 s plus
 * 0.4 s for the key). Nobody reads a building build; a failure rolls the key's drop back.
 */
async function withoutPrimaryKey(c: SqlTx, table: string, fill: () => Promise<unknown>): Promise<void> {
  await c.query(`TRUNCATE ${table}`);
  const { rows } = await c.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
    [table],
  );
  for (const k of rows) await c.query(`ALTER TABLE ${table} DROP CONSTRAINT ${quoteIdent(k.name)}`);
  await fill();
  for (const k of rows) await c.query(`ALTER TABLE ${table} ADD CONSTRAINT ${quoteIdent(k.name)} ${k.definition}`);
}

/** The swaps' primary key as the schema creates it (PRIMARY KEY in CREATE TABLE names it `<table>_pkey`). */
const SWAPS_KEY = { name: 'swaps_pkey', columns: swapsSchemaV3.tables.find((t) => t.name === 'swaps')!.key };

const swapsKeyExists = async (c: SqlTx, schema: string) =>
  (await c.query(`SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2`, [`${schema}.swaps`, SWAPS_KEY.name])).rows.length > 0;

/** Drops a replaying build's swaps primary key, if it has it (the replay's handler; `restoreSwapsKey` builds it back). */
export async function dropSwapsKey(c: SqlTx, schema: string): Promise<void> {
  if (await swapsKeyExists(c, schema)) await c.query(`ALTER TABLE ${schema}.swaps DROP CONSTRAINT ${SWAPS_KEY.name}`);
}

/**
 * Builds the swaps primary key back, if the replay dropped it: the index first, which lets the
 * fold's reader read the swaps meanwhile (SHARE against its ACCESS SHARE), then the constraint on
 * it, which waits for the reader's transaction to end.
 */
async function restoreSwapsKey(c: SqlTx, schema: string): Promise<void> {
  if (await swapsKeyExists(c, schema)) return;
  await c.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${SWAPS_KEY.name} ON ${schema}.swaps (${SWAPS_KEY.columns.join(', ')})`);
  await c.query(`ALTER TABLE ${schema}.swaps ADD CONSTRAINT ${SWAPS_KEY.name} PRIMARY KEY USING INDEX ${SWAPS_KEY.name}`);
}

/**
 * Writes a v3 build's running totals and recipients from its swaps (ProjectionDefinition.finishBuild),
 * through `apart`: the reader folding the swaps, a writer per table, and the swaps' primary key
 * built back (a replay drops it), each on its own connection.
 * A failure on either side ends the others (their COPYs aborted), so `apart` settles. Total: each
 * writer empties its table first, whatever it held (an older handler's rows, a failed finish).
 */
export async function finishSwapsBuild(_tx: SqlTx, schema: string, apart: RunApart): Promise<void> {
  const out: Outputs = { poolSeconds: new CopyPipe(), poolDays: new CopyPipe(), recipientSeconds: new CopyPipe(), recipientDays: new CopyPipe() };
  const pipes = Object.values(out);
  const fold = new RunningFold(out);
  const failAll = (e: unknown) => {
    for (const p of pipes) p.fail(e);
    throw e;
  };
  const copyInto = (table: string, input: CopyPipe) => (c: SqlTx) =>
    withoutPrimaryKey(c, `${schema}.${table}`, () =>
      copyFrom(c as unknown as ClientBase, `COPY ${schema}.${table} (${RUNNING_TABLE_COLUMNS[table].join(', ')}) FROM STDIN`, input),
    ).catch(failAll);
  const groups: ApartGroup[] = [
    async (c) => {
      await copyTo(c as unknown as ClientBase, `COPY (${READ(schema)}) TO STDOUT`, (row) => fold.row(row)).catch(failAll);
      fold.end();
      for (const p of pipes) p.end();
    },
    copyInto('fee_running_second', out.poolSeconds),
    copyInto('fee_running_day', out.poolDays),
    copyInto('fee_recipient_running_second', out.recipientSeconds),
    (c) => restoreSwapsKey(c, schema),
    async (c) => {
      await copyInto('fee_recipient_running_day', out.recipientDays)(c);
      // Each pool's recipients, once the reader has ended (it has: the days' input ended).
      const recipients = new CopyPipe();
      for (const key of fold.recipientKeys) void recipients.write(`${key}\n`);
      recipients.end();
      await c.query(`TRUNCATE ${schema}.fee_recipients`);
      await copyFrom(c as unknown as ClientBase, `COPY ${schema}.fee_recipients (${RUNNING_TABLE_COLUMNS.fee_recipients.join(', ')}) FROM STDIN`, recipients);
    },
  ];
  await apart(groups);
}
