import type { ProjectionSchemaVersion } from '../projection';
import { quoteIdent } from '../sql/identifiers';

/** Anything that runs SQL: a pg client/pool, a TypeORM QueryRunner (migrations), a consumer tx. */
export interface SqlExec {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export const READ_SCHEMA = 'read';
export const REGISTRY = 'projector.projection_builds';

/** Creates a build's schema and its tables (empty). */
export async function createBuildTables(db: SqlExec, shape: ProjectionSchemaVersion, schemaName: string): Promise<void> {
  const s = quoteIdent(schemaName);
  await db.query(`CREATE SCHEMA ${s}`);
  for (const statement of shape.ddl(s)) await db.query(statement);
}

/**
 * Points the stable `read.<view>` names at a build. DROP + CREATE (not CREATE OR REPLACE) so a new
 * version may change columns; run inside the switch transaction, readers see the old or the new
 * build, never a mix. Nothing else may depend on these views (they are recreated on every switch).
 */
export async function pointReadViews(db: SqlExec, shape: ProjectionSchemaVersion, schemaName: string): Promise<void> {
  const s = quoteIdent(schemaName);
  for (const view of shape.views) {
    const name = `${READ_SCHEMA}.${quoteIdent(view.name)}`;
    await db.query(`DROP VIEW IF EXISTS ${name}`);
    await db.query(`CREATE VIEW ${name} AS ${view.select(s)}`);
  }
}

export async function dropReadViews(db: SqlExec, shape: ProjectionSchemaVersion): Promise<void> {
  for (const view of shape.views) await db.query(`DROP VIEW IF EXISTS ${READ_SCHEMA}.${quoteIdent(view.name)}`);
}
