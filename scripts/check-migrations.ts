/**
 * Fails when the migrations and the committed schema drift, or a migration does not reverse cleanly:
 * 1. apply every migration set to a fresh database;
 * 2. dump its schema (scripts/schema-dump.ts) and compare it with scripts/schema.snapshot.txt —
 *    a migration change without a regenerated snapshot fails (`npm run migrations:snapshot`
 *    rewrites it: review its diff as the schema change);
 *    and the API's read contract (apps/api/src/health/read-contract.generated.ts, the snapshot's
 *    `read` views: what the API's readiness requires) with what the snapshot gives;
 * 3. revert every migration (down), check nothing is left, and apply them all again.
 * Uses DATABASE_URL, or starts the embedded test Postgres.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createLogger, runMigrations, startEmbeddedPostgres } from '@hadron/platform';
import { READ_CONTRACT_FILE, readContractSource } from './read-contract';
import { dumpSchema } from './schema-dump';
import { migrationSets } from './schema-registry';

const SNAPSHOT = resolve(__dirname, 'schema.snapshot.txt');
const write = process.argv.includes('--write');

async function main(): Promise<number> {
  const log = createLogger('migrations:check', 'warn');
  let admin = process.env.DATABASE_URL;
  const embedded = admin
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: resolve(__dirname, '../.data/test-postgres'),
        port: Number(process.env.TEST_EMBEDDED_PG_PORT ?? 54339),
        database: 'postgres',
        log,
      });
  admin ??= embedded!.url;
  const name = `migcheck_${randomBytes(4).toString('hex')}`;
  await sql(admin, `CREATE DATABASE ${name}`);
  const u = new URL(admin);
  u.pathname = `/${name}`;
  const url = u.toString();
  let problems: string[] = [];
  try {
    await runMigrations(url, migrationSets);
    if (write) {
      const dump = await dumpSchema(url);
      writeFileSync(SNAPSHOT, dump);
      writeFileSync(READ_CONTRACT_FILE, readContractSource(dump));
      process.stdout.write(`migrations:snapshot wrote ${SNAPSHOT} and ${READ_CONTRACT_FILE}\n`);
      return 0;
    }
    problems = await snapshotDrift(url);
    if (problems.length === 0) problems = await reversibility(url);
  } finally {
    await sql(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    if (embedded) await embedded.release();
  }
  if (problems.length) {
    process.stderr.write(`migrations:check FAILED\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    return 1;
  }
  process.stdout.write(
    `migrations:check ok: ${migrationSets.map((s) => `${s.name} (${s.migrations.length})`).join(', ')} produce scripts/schema.snapshot.txt and reverse cleanly\n`,
  );
  return 0;
}

async function snapshotDrift(url: string): Promise<string[]> {
  const dump = await dumpSchema(url);
  const actual = dump.split('\n');
  const expected = readFileSync(SNAPSHOT, 'utf8').split('\n');
  const first = actual.findIndex((line, i) => line !== expected[i]);
  if (first < 0 && actual.length === expected.length) {
    if (readFileSync(READ_CONTRACT_FILE, 'utf8') === readContractSource(dump)) return [];
    return [`${READ_CONTRACT_FILE} is not the snapshot's read views: run \`npm run migrations:snapshot\` and commit it`];
  }
  const at = first < 0 ? Math.min(actual.length, expected.length) : first;
  return [
    `the migrations no longer produce scripts/schema.snapshot.txt (first difference at line ${at + 1}):`,
    `  snapshot:   ${expected[at] ?? '(end)'}`,
    `  migrations: ${actual[at] ?? '(end)'}`,
    'If the migration change is intended, run `npm run migrations:snapshot` and commit the snapshot with it.',
  ];
}

async function reversibility(url: string): Promise<string[]> {
  for (const set of [...migrationSets].reverse()) {
    const ds = new DataSource({ type: 'postgres', url, migrations: set.migrations, migrationsTableName: set.tableName, logging: false });
    await ds.initialize();
    try {
      for (let i = 0; i < set.migrations.length; i++) await ds.undoLastMigration({ transaction: 'each' });
    } finally {
      await ds.destroy();
    }
  }
  const left = await sql(
    url,
    `SELECT table_schema || '.' || table_name AS t FROM information_schema.tables
      WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_name NOT LIKE '%migrations'`,
  );
  if (left.length) return [`after reverting every migration these remain: ${left.map((r) => r.t).join(', ')}`];
  await runMigrations(url, migrationSets);
  return [];
}

async function sql(url: string, text: string): Promise<Array<Record<string, string>>> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`migrations:check error: ${(e as Error).stack}\n`);
    process.exit(1);
  },
);
