import type { SqlTx } from '@hadron/platform/event-log/event-log.port';
import { PoisonEventError } from '../projection';

/**
 * Facts are applied once per event id (a unique (cluster, id) index; the primary key holds the
 * block time, which a second copy of an event may not share). A copy that is not the same fact —
 * the same id with another block time, position or amounts — must not pass silently either: it
 * is refused as a poison event, so it lands in the dead letters with both versions in the reason.
 */

/**
 * Within one batch: the first copy of an id is kept; a later copy with another payload is refused.
 * A fingerprint is written only when an id comes twice (rare: a redelivered copy), not per event;
 * nothing is allocated per event but the map's entry.
 */
export class BatchIds<T> {
  private readonly seen = new Map<string, T>();

  /** `fingerprint`: what must be equal for two copies of an item to be the same fact. */
  constructor(private readonly fingerprint: (item: T) => string) {}

  /** True for the first copy of `id`; false for an identical later copy; throws for a different one. */
  first(id: string, item: T): boolean {
    const before = this.seen.get(id);
    if (before === undefined) {
      this.seen.set(id, item);
      return true;
    }
    const [was, is] = [this.fingerprint(before), this.fingerprint(item)];
    if (was !== is) throw new PoisonEventError(id, `duplicate event id with a different payload in one batch: ${was} then ${is}`);
    return false;
  }
}

/**
 * Across batches: called when an insert kept fewer rows than it was given. `inputSql` is the
 * statement's `input` CTE (same parameters); rows of `table` with the same (cluster, id) whose
 * `columns` differ from the input are refused. A column is a name, or an expression over `$.`
 * (the row it is read from).
 */
export async function refuseChangedDuplicates(
  tx: SqlTx,
  table: string,
  inputSql: string,
  columns: readonly string[],
  params: readonly unknown[],
): Promise<void> {
  const of = (alias: string) => columns.map((c) => (c.includes('$.') ? c.replaceAll('$.', `${alias}.`) : `${alias}.${c}`)).join(', ');
  const stored = `row(${of('t')})`;
  const incoming = `row(${of('i')})`;
  const { rows } = await tx.query<{ id: string; stored: string; incoming: string }>(
    `WITH input AS (${inputSql})
     SELECT i.id, ${stored}::text AS stored, ${incoming}::text AS incoming
       FROM input i JOIN ${table} t ON t.cluster = i.cluster AND t.id = i.id
      WHERE ${stored} IS DISTINCT FROM ${incoming}
      LIMIT 1`,
    params,
  );
  if (rows[0]) {
    const names = columns.map((c) => (c.includes('$.') ? /\$\.(\w+)/.exec(c)![1] : c));
    throw new PoisonEventError(
      rows[0].id,
      `duplicate event id with a different payload: already applied with (${names.join(', ')}) = ${rows[0].stored}, this copy has ${rows[0].incoming}`,
    );
  }
}
