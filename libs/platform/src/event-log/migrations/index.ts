import type { MigrationSet } from '../../database/migrate';
import { EventLog1763800000000 } from './1763800000000-event-log';
import { ComponentStatus1763800000001 } from './1763800000001-component-status';
import { EventLogType1763800000002 } from './1763800000002-event-log-type';
import { EventLogWriterEpoch1763800000003 } from './1763800000003-event-log-writer-epoch';

/** Platform tables: the event log, consumer checkpoints, dead letters, component status. Every process applies them. */
export const eventLogMigrations: MigrationSet = {
  name: 'event-log',
  tableName: 'event_log_migrations',
  migrations: [EventLog1763800000000, ComponentStatus1763800000001, EventLogType1763800000002, EventLogWriterEpoch1763800000003],
};
