import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';

export type MigrationClass = new () => MigrationInterface;

/** A component's own migrations, tracked in its own table so apps can be deployed separately. */
export interface MigrationSet {
  name: string;
  tableName: string;
  migrations: MigrationClass[];
}

/**
 * Applies pending migrations of each set, in order. An advisory lock serialises processes that
 * start together (three deployables against one database). Never `synchronize`.
 */
export async function runMigrations(url: string, sets: readonly MigrationSet[]): Promise<string[]> {
  const lock = new Client({ connectionString: url });
  lock.on('error', () => undefined); // a lost connection fails the migration's queries instead
  await lock.connect();
  const applied: string[] = [];
  try {
    await lock.query("SELECT pg_advisory_lock(hashtext('hadron:migrations'))");
    for (const set of sets) {
      const ds = new DataSource({
        type: 'postgres',
        url,
        migrations: set.migrations,
        migrationsTableName: set.tableName,
        migrationsTransactionMode: 'each',
        logging: false,
      });
      await ds.initialize();
      try {
        const done = await ds.runMigrations({ transaction: 'each' });
        applied.push(...done.map((m) => `${set.name}:${m.name}`));
      } finally {
        await ds.destroy();
      }
    }
  } finally {
    await lock.query("SELECT pg_advisory_unlock(hashtext('hadron:migrations'))").catch(() => undefined);
    await lock.end();
  }
  return applied;
}
