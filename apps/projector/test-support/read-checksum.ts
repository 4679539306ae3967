import type { Pool } from 'pg';
import type { ProjectionDefinition } from '../src/projection';
import { quoteIdent } from '../src/sql/identifiers';

export interface TableChecksum {
  rows: number;
  md5: string;
}

/**
 * A checksum of every event-derived table of a build: md5 over the md5 of each row's text, in
 * primary-key order. Tables derived from the wall clock (`volatile`) are left out.
 */
export async function checksumBuild(pool: Pool, def: ProjectionDefinition, schemaName: string): Promise<Record<string, TableChecksum>> {
  const out: Record<string, TableChecksum> = {};
  for (const table of def.schema.tables) {
    if (table.volatile) continue;
    const { rows } = await pool.query<{ n: string; md5: string | null }>(
      `SELECT count(*) AS n, md5(string_agg(md5(t::text), '' ORDER BY ${table.key.map((k) => `t.${k}`).join(', ')})) AS md5
         FROM ${quoteIdent(schemaName)}.${quoteIdent(table.name)} t`,
    );
    out[`${def.name}.${table.name}`] = { rows: Number(rows[0].n), md5: rows[0].md5 ?? 'empty' };
  }
  return out;
}
