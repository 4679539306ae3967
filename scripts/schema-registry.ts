import { eventLogMigrations, type MigrationSet } from '@hadron/platform';
import { indexerMigrations } from '../apps/indexer/src/index';
import { projectorMigrations } from '../apps/projector/src/index';

/**
 * Every component's migrations, for the drift check (scripts/check-migrations.ts). A component
 * that adds tables registers its MigrationSet here; `npm run migrations:snapshot` then records the
 * schema they produce in scripts/schema.snapshot.txt.
 */
export const migrationSets: MigrationSet[] = [eventLogMigrations, projectorMigrations, indexerMigrations];
