import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import { quoteIdent } from './identifiers';

/**
 * A table's primary key left out while rows are bulk-written, then built once: building a b-tree
 * from sorted input costs far less than maintaining it row by row, and nobody reads the table
 * (a `building` build, or a table being refilled) in between.
 */

interface PrimaryKey {
  name: string;
  definition: string;
}

/** `table`'s primary key (name, and its definition as `pg_get_constraintdef` writes it), if it has one. */
async function primaryKeyOf(c: SqlTx, table: string): Promise<PrimaryKey | undefined> {
  const { rows } = await c.query<PrimaryKey>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
    [table],
  );
  return rows[0];
}

/** Drops `table`'s primary key, if it has one. */
export async function dropPrimaryKey(c: SqlTx, table: string): Promise<void> {
  const key = await primaryKeyOf(c, table);
  if (key) await c.query(`ALTER TABLE ${table} DROP CONSTRAINT ${quoteIdent(key.name)}`);
}

/**
 * Gives `schema`.`table` the primary key on `columns` unless it has one, as CREATE TABLE would have
 * declared it (the constraint and its index named `<table>_pkey`), while `alongside` runs: the
 * index is built under a SHARE lock, which lets `alongside`'s transactions read the table
 * meanwhile (not write it); attaching it as the key takes the table's exclusive lock, so that waits
 * until `alongside` has settled. A key already there is left as it is (a table that never lost it).
 * Throws what either threw, once both have ended.
 */
export async function restorePrimaryKey(c: SqlTx, schema: string, table: string, columns: readonly string[], alongside: () => Promise<void>): Promise<void> {
  const relation = `${schema}.${quoteIdent(table)}`;
  if (await primaryKeyOf(c, relation)) return alongside();
  const name = quoteIdent(`${table}_pkey`);
  const ended = await Promise.allSettled([c.query(`CREATE UNIQUE INDEX ${name} ON ${relation} (${columns.map(quoteIdent).join(', ')})`), alongside()]);
  const failed = ended.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  await c.query(`ALTER TABLE ${relation} ADD CONSTRAINT ${name} PRIMARY KEY USING INDEX ${name}`);
}

/**
 * Empties `table` and fills it by `fill` without its primary key, then adds the key back as it was
 * (same name and definition), in the caller's transaction: building the index once, sorted, cost
 * less than maintaining it row by row (332,000 second rows: a COPY of 2.6 s against 1.6 s plus
 * 0.4 s for the key). A failure rolls the key's drop back.
 */
export async function withoutPrimaryKey(c: SqlTx, table: string, fill: () => Promise<unknown>): Promise<void> {
  await c.query(`TRUNCATE ${table}`);
  const key = await primaryKeyOf(c, table);
  if (key) await c.query(`ALTER TABLE ${table} DROP CONSTRAINT ${quoteIdent(key.name)}`);
  await fill();
  if (key) await c.query(`ALTER TABLE ${table} ADD CONSTRAINT ${quoteIdent(key.name)} ${key.definition}`);
}
