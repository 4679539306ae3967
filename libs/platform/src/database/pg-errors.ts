/** SQLSTATE undefined_table: a relation (table or view) does not exist. */
export const PG_UNDEFINED_TABLE = '42P01';
/** SQLSTATE undefined_column: a column does not exist. */
export const PG_UNDEFINED_COLUMN = '42703';
/** SQLSTATE invalid_schema_name: the schema does not exist. */
export const PG_INVALID_SCHEMA = '3F000';
/** SQLSTATE unique_violation: a row hit a unique index. */
export const PG_UNIQUE_VIOLATION = '23505';

/**
 * A query named a relation, schema or column that is not there (yet): for a reader of another
 * component's published views, that component has not created them, or not yet migrated them to
 * the release the reader is of (a column a newer release adds) — its service is not available
 * yet, nothing is broken here.
 */
export function isMissingReadObject(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === PG_UNDEFINED_TABLE || code === PG_INVALID_SCHEMA || code === PG_UNDEFINED_COLUMN;
}
