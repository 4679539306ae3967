import type { Pool } from 'pg';

/**
 * A build schema's constraints and indexes, as Postgres describes them (`pg_get_constraintdef`,
 * `pg_indexes.indexdef`), with the schema's name taken out: two builds built alike compare equal.
 */
export async function buildShape(pool: Pool, schemaName: string): Promise<{ constraints: string[]; indexes: string[] }> {
  const constraints = await pool.query<{ line: string }>(
    `SELECT c.relname || ' ' || k.conname || ' ' || k.contype::text || ' ' || pg_get_constraintdef(k.oid) AS line
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relnamespace = $1::regnamespace ORDER BY 1`,
    [schemaName],
  );
  const indexes = await pool.query<{ line: string }>(`SELECT indexname || ' ' || indexdef AS line FROM pg_indexes WHERE schemaname = $1 ORDER BY 1`, [
    schemaName,
  ]);
  const unnamed = (line: string) => line.replaceAll(`${schemaName}.`, '').replaceAll(`"${schemaName}".`, '');
  return { constraints: constraints.rows.map((r) => unnamed(r.line)), indexes: indexes.rows.map((r) => unnamed(r.line)) };
}
