import type { Pool } from 'pg';
import type { Logger } from '@hadron/platform/logging/logger';

/**
 * Read access to the projections. Every hot query is a named (prepared) statement: parsed and
 * planned once per connection. The `read.*` views are recreated when the projector switches a
 * build; Postgres re-plans by itself, but if a new view changed a column's type (a new projection
 * version) a prepared statement fails with "cached plan must not change result type". Then the
 * names move to a new generation (prepared afresh on every connection) and the query is retried.
 */
export class ReadDb {
  private generation = 0;

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
  ) {}

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

  private async prepared<R>(name: string, run: (preparedName: string) => Promise<R[]>): Promise<R[]> {
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

  /** Unprepared (rare or one-off statements). */
  async queryOnce<R>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R & object>(text, values as unknown[])).rows;
  }
}
