import { eventLogEntities, eventLogMigrations, ComponentStatusEntity, type MigrationSet } from '@hadron/platform';
import { indexerEntities, indexerMigrations } from '../apps/indexer/src/index';
import { ProjectionBuildEntity, projectorMigrations, readModelEntities } from '../apps/projector/src/index';

/**
 * Every component's migrations and TypeORM entities, for the drift check. A component that adds
 * tables registers its MigrationSet and entities here.
 */
export const migrationSets: MigrationSet[] = [eventLogMigrations, projectorMigrations, indexerMigrations];
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const entities: Function[] = [...eventLogEntities, ComponentStatusEntity, ProjectionBuildEntity, ...readModelEntities, ...indexerEntities];
