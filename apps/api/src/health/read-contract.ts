/**
 * The read contract this release's API is built against: every `read` view with its columns and
 * their types, as this release's projector migrations publish them (`READ_CONTRACT`, generated
 * with scripts/schema.snapshot.txt by `npm run migrations:snapshot`; `npm run migrations:check`
 * fails while the two differ). Later releases only add to it (a projector's switch keeps every
 * view's columns and types), so a column missing here means a read schema that the projector has
 * not migrated to this release yet: the API's data queries on it fail (503 `unavailable`), and
 * readiness says so.
 */
import { READ_CONTRACT } from './read-contract.generated';

const CONTRACT = Object.entries(READ_CONTRACT).flatMap(([view, columns]) => columns.map(([column, type]) => [view, column, type] as const));
/** How many columns the contract holds. */
export const READ_CONTRACT_SIZE = CONTRACT.length;
const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * The contract's columns the database lacks (or has with another type), as `read.<view>.<column>`
 * in the contract's order: one catalog query, the contract in its text (prepared once per
 * connection; a missing `read` schema or view misses them all). About 0.6 ms of Postgres.
 */
export const MISSING_READ_COLUMNS_SQL = `SELECT 'read.' || x.v || '.' || x.c AS missing
  FROM (VALUES ${CONTRACT.map(([v, c, t], i) => `(${literal(v)}, ${literal(c)}, ${literal(t)}, ${i})`).join(', ')}) AS x(v, c, t, n)
  LEFT JOIN (SELECT r.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type
               FROM pg_namespace s JOIN pg_class r ON r.relnamespace = s.oid JOIN pg_attribute a ON a.attrelid = r.oid
              WHERE s.nspname = 'read' AND a.attnum > 0 AND NOT a.attisdropped) h ON h.relname = x.v AND h.attname = x.c AND h.type = x.t
 WHERE h.relname IS NULL
 ORDER BY x.n`;

/** The readiness reason for `missing` (MISSING_READ_COLUMNS_SQL's rows), or undefined when none is. */
export function readContractReason(missing: readonly string[]): string | undefined {
  if (missing.length === 0) return undefined;
  if (missing.length === READ_CONTRACT_SIZE) return 'read schema not created yet: the projector has not run its migrations';
  const named = missing.slice(0, 3).join(', ') + (missing.length > 3 ? ', …' : '');
  return `read schema not migrated to this release: ${missing.length} of ${READ_CONTRACT_SIZE} columns missing (${named}); upgrade the projector (its migrations) first`;
}
