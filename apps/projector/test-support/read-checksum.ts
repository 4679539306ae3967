import type { Pool } from 'pg';
import type { ProjectionDefinition } from '../src/projection';
import { quoteIdent } from '../src/sql/identifiers';

export interface TableChecksum {
  rows: number;
  md5: string;
}

/**
 * A checksum of every event-derived table of a build: md5 over the md5 of each row's text, in
 * primary-key order. Tables derived from the wall clock (`volatile`) are left out, unless
 * `pinnedClock` says every refresh used the same "now": then they count, without the columns that
 * record when the refresh ran.
 */
export async function checksumBuild(
  pool: Pool,
  def: ProjectionDefinition,
  schemaName: string,
  opts: { pinnedClock?: boolean } = {},
): Promise<Record<string, TableChecksum>> {
  const out: Record<string, TableChecksum> = {};
  for (const table of def.schema.tables) {
    if (table.volatile && !opts.pinnedClock) continue;
    let row = 't';
    if (table.wallClockColumns?.length) {
      const { rows: cols } = await pool.query<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND NOT (column_name = ANY($3::text[])) ORDER BY ordinal_position',
        [schemaName, table.name, table.wallClockColumns],
      );
      row = `row(${cols.map((c) => `t.${quoteIdent(c.column_name)}`).join(', ')})`;
    }
    const { rows } = await pool.query<{ n: string; md5: string | null }>(
      `SELECT count(*) AS n, md5(string_agg(md5(${row}::text), '' ORDER BY ${table.key.map((k) => `t.${k}`).join(', ')})) AS md5
         FROM ${quoteIdent(schemaName)}.${quoteIdent(table.name)} t`,
    );
    out[`${def.name}.${table.name}`] = { rows: Number(rows[0].n), md5: rows[0].md5 ?? 'empty' };
  }
  return out;
}
