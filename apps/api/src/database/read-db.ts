import type { Pool } from 'pg';
import { isTransientDbError } from '@hadron/platform/database/pool';
import type { Logger } from '@hadron/platform/logging/logger';
import { batchParams, type BatchableStatement } from './batched-statement';

/** An execution waiting for its batch: its values, and how to answer it. */
interface Waiting {
  values: readonly unknown[];
  arrays: boolean;
  ok: (rows: unknown[]) => void;
  fail: (e: unknown) => void;
}

/** At most this many executions go in one round trip. */
export const MAX_BATCH = 16;

/**
 * Read access to the projections. Every hot query is a named (prepared) statement: parsed and
 * planned once per connection. The `read.*` views are recreated when the projector switches a
 * build; Postgres re-plans by itself, but if a new view changed a column's type (a new projection
 * version) a prepared statement fails with "cached plan must not change result type". Then the
 * names move to a new generation (prepared afresh on every connection) and the query is retried.
 */
export class ReadDb {
  private generation = 0;
  /** Batchable executions waiting, by statement; the statements in the order their oldest arrived. */
  private readonly waiting = new Map<BatchableStatement, Waiting[]>();
  private batchesRunning = 0;
  /** Round trips and executions of batchable statements so far (metrics and tests). */
  readonly batchStats = { roundTrips: 0, executions: 0 };

  /** Executions of batchable statements waiting for a round trip now. */
  get batchWaiting(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  /**
   * `batches`: how many round trips of batchable statements may run at once (API_QUERY_BATCHES);
   * while that many run, further executions wait and go together in the next one. 0: each runs
   * alone at once.
   */
  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    private readonly batches = 0,
  ) {}

  /**
   * Runs a batchable statement (see batchable) for `values`, as part of one round trip with other
   * executions of it waiting at the same time: at most `batches` round trips of batchable statements
   * run at once, and when one ends the statement whose execution has waited longest goes next, with
   * every execution of it waiting then (up to MAX_BATCH). So under load executions share round trips,
   * and alone (no wait) one runs as its own statement, as `query` runs it. If a shared round trip
   * fails, each of its executions is run alone, so one execution's error is never another's.
   */
  batched<R>(statement: BatchableStatement, values: readonly unknown[]): Promise<R[]> {
    return this.enqueue<R>(statement, values, false);
  }

  /** `batched` with each row an array of its columns (see queryArrays). */
  batchedArrays<R extends unknown[]>(statement: BatchableStatement, values: readonly unknown[]): Promise<R[]> {
    return this.enqueue<R>(statement, values, true);
  }

  private enqueue<R>(statement: BatchableStatement, values: readonly unknown[], arrays: boolean): Promise<R[]> {
    if (values.length !== statement.types.length)
      return Promise.reject(new Error(`${statement.name}: ${values.length} values for ${statement.types.length} parameters`));
    if (this.batches === 0) {
      this.batchStats.executions++;
      return this.alone<R>(statement, values, arrays);
    }
    return new Promise<R[]>((ok, fail) => {
      const w: Waiting = { values, arrays, ok: ok as (rows: unknown[]) => void, fail };
      const queue = this.waiting.get(statement);
      if (queue) queue.push(w);
      else this.waiting.set(statement, [w]);
      this.next();
    });
  }

  /** Starts round trips while fewer than `batches` run: the statement waiting longest first (Map order), all of its executions. */
  private next(): void {
    while (this.batchesRunning < this.batches && this.waiting.size > 0) {
      const [statement, queue] = this.waiting.entries().next().value as [BatchableStatement, Waiting[]];
      const batch = queue.length <= MAX_BATCH ? queue : queue.splice(0, MAX_BATCH);
      // The rest of a long queue goes to the back: a statement cannot hold every round trip.
      this.waiting.delete(statement);
      if (batch !== queue) this.waiting.set(statement, queue);
      this.batchesRunning++;
      void this.runBatch(statement, batch);
    }
  }

  /**
   * One round trip for `batch`. Its slot is given back (and the next round trip sent) before the
   * waiters are answered: their handlers then build responses while Postgres already works on the
   * next batch, instead of Postgres waiting for them.
   */
  private async runBatch(statement: BatchableStatement, batch: Waiting[]): Promise<void> {
    let answer: () => void;
    try {
      answer = await this.roundTrip(statement, batch);
    } catch (e) {
      // Not the query's failure (roundTrip answers those): still, no waiter may be left hanging.
      answer = () => batch.forEach((w) => w.fail(e));
    } finally {
      this.batchesRunning--;
      this.next();
    }
    answer();
  }

  /** Runs `batch` and says how to answer its waiters. */
  private async roundTrip(statement: BatchableStatement, batch: Waiting[]): Promise<() => void> {
    this.batchStats.executions += batch.length;
    if (batch.length === 1) return this.runAlone(statement, batch[0]);
    this.batchStats.roundTrips++;
    let result: { rows: unknown[][]; fields: Array<{ name: string }> };
    try {
      result = await this.prepared(`${statement.name}-batch`, (n) =>
        this.pool.query<unknown[]>({ name: n, text: statement.batchText, values: [batchParams(batch.map((w) => w.values))], rowMode: 'array' }),
      );
    } catch (e) {
      // The database is away: every execution fails alike (running each alone would only wait again).
      if (isTransientDbError(e)) return () => batch.forEach((w) => w.fail(e));
      // One execution's values may be what failed: run each alone, each with its own outcome.
      const answers = await Promise.all(batch.map((w) => this.runAlone(statement, w)));
      return () => answers.forEach((a) => a());
    }
    const names = result.fields.slice(1).map((f) => f.name);
    const rowsOf: unknown[][] = batch.map(() => []);
    for (const row of result.rows) {
      const values = row.slice(1);
      rowsOf[row[0] as number].push(batch[row[0] as number].arrays ? values : Object.fromEntries(names.map((name, j) => [name, values[j]])));
    }
    return () => batch.forEach((w, i) => w.ok(rowsOf[i]));
  }

  /** One waiter's execution alone; how to answer it (its rows or its error). */
  private runAlone(statement: BatchableStatement, w: Waiting): Promise<() => void> {
    return this.alone(statement, w.values, w.arrays).then(
      (rows) => () => w.ok(rows as unknown[]),
      (e: unknown) => () => w.fail(e),
    );
  }

  async query<R>(name: string, text: string, values: readonly unknown[] = []): Promise<R[]> {
    return this.prepared(name, async (n) => (await this.pool.query<R & object>({ name: n, text, values: values as unknown[] })).rows);
  }

  /**
   * The same, each row an array of its columns in SELECT order: no object per row, which is most of
   * node-postgres's parsing cost for a few hundred rows (the history endpoints).
   */
  async queryArrays<R extends unknown[]>(name: string, text: string, values: readonly unknown[] = []): Promise<R[]> {
    return this.prepared(name, async (n) => (await this.pool.query<R>({ name: n, text, values: values as unknown[], rowMode: 'array' })).rows);
  }

  private async prepared<T>(name: string, run: (preparedName: string) => Promise<T>): Promise<T> {
    const generation = this.generation;
    try {
      return await run(`${name}#${generation}`);
    } catch (e) {
      if (!/cached plan must not change result type/.test((e as Error).message ?? '')) throw e;
      if (this.generation === generation) {
        this.generation++;
        this.log.warn({ statement: name }, 'a read view changed shape: preparing statements afresh');
      }
      return run(`${name}#${this.generation}`);
    }
  }

  /** A batchable statement's execution on its own (a round trip of its own), as `query` or `queryArrays` would run it. */
  private alone<R>(statement: BatchableStatement, values: readonly unknown[], arrays: boolean): Promise<R[]> {
    this.batchStats.roundTrips++;
    return arrays ? (this.queryArrays(statement.name, statement.text, values) as Promise<R[]>) : this.query<R>(statement.name, statement.text, values);
  }

  /** Unprepared (rare or one-off statements). */
  async queryOnce<R>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R & object>(text, values as unknown[])).rows;
  }
}
