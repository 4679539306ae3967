import { inTransaction } from '@hadron/platform/database/pool';
import type { Pool } from 'pg';
import { createBuildTables, pointReadViews } from '../src/builds/build-objects';
import type { ProjectionSchemaVersion } from '../src/projection';
import { quoteIdent } from '../src/sql/identifiers';

/** An empty build of `shape` in schema `schemaName`, with the `read` views pointing at it (as a switch leaves it); returns the schema quoted for SQL. */
export async function createServedBuild(pool: Pool, shape: ProjectionSchemaVersion, schemaName: string): Promise<string> {
  await inTransaction(pool, async (c) => {
    await createBuildTables(c, shape, schemaName);
    await pointReadViews(c, shape, schemaName);
  });
  return quoteIdent(schemaName);
}
