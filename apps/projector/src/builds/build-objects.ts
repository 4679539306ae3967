import type { ProjectionSchemaVersion } from '../projection';
import { quoteIdent } from '../sql/identifiers';

/** Anything that runs SQL and answers pg's way (`{ rows }`): a pg client, a consumer tx; the migration adapts its QueryRunner. */
export interface SqlExec {
  query(sql: string, params?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

export const READ_SCHEMA = 'read';
export const REGISTRY = 'projector.projection_builds';
/**
 * Advisory lock around the `read` views: a switch takes it exclusively before it drops and
 * recreates views; the projector's own multi-view readers (the 24 h refresher) take it shared, in
 * a transaction, before they read. So they never hold one view while the switch holds another.
 */
export const READ_VIEWS_LOCK = "hashtext('hadron:projector:read-views')";

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
 * The existing views are locked first, all in one statement, so the switch never holds one view
 * while waiting for another that a reader holds (API queries read several views at once); with a
 * lock_timeout set by the caller it gives way to readers and retries instead of deadlocking.
 */
export async function pointReadViews(db: SqlExec, shape: ProjectionSchemaVersion, schemaName: string): Promise<void> {
  const s = quoteIdent(schemaName);
  const { rows } = await db.query(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = '${READ_SCHEMA}' AND c.relkind = 'v' AND c.relname = ANY($1::text[]) ORDER BY c.relname`,
    [shape.views.map((v) => v.name)],
  );
  const existing = rows.map((r) => `${READ_SCHEMA}.${quoteIdent(r.name as string)}`);
  if (existing.length > 0) await db.query(`LOCK TABLE ${existing.join(', ')} IN ACCESS EXCLUSIVE MODE`);
  for (const view of shape.views) {
    const name = `${READ_SCHEMA}.${quoteIdent(view.name)}`;
    await db.query(`DROP VIEW IF EXISTS ${name}`);
    await db.query(`CREATE VIEW ${name} AS ${view.select(s)}`);
  }
}
