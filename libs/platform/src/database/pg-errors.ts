/** SQLSTATE undefined_table: a relation (table or view) does not exist. */
export const PG_UNDEFINED_TABLE = '42P01';
/** SQLSTATE invalid_schema_name: the schema does not exist. */
export const PG_INVALID_SCHEMA = '3F000';
/** SQLSTATE unique_violation: a row hit a unique index. */
export const PG_UNIQUE_VIOLATION = '23505';

/**
 * A query named a relation or schema that is not there (yet): for a reader of another component's
 * published views, that component has not created them — its service is not available yet, nothing
 * is broken here.
 */
export function isMissingRelation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === PG_UNDEFINED_TABLE || code === PG_INVALID_SCHEMA;
}
