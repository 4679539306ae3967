import type { HadronEvent } from '@hadron/contracts';
import { POISON_EVENT, type BatchHandler, type SqlTx } from '@hadron/platform/event-log/event-log.port';

/** A table of one build. `key` orders rows for checksums (normally the primary key). */
export interface ProjectionTable {
  name: string;
  key: readonly string[];
  /**
   * Derived from the wall clock (e.g. 24 h stats), not from events alone: left out of replay
   * checksums unless the clock is pinned (then without `wallClockColumns`, e.g. refreshed_at).
   */
  volatile?: boolean;
  wallClockColumns?: readonly string[];
}

/** A stable reader-facing view `read.<name>`; `select(schema)` reads from a build's schema. */
export interface ReadView {
  name: string;
  select(schema: string): string;
}

/**
 * The physical shape of one projection version. Frozen once released: a change of tables or views
 * is a new version (a new object), replayed into a fresh build and switched to atomically.
 */
export interface ProjectionSchemaVersion {
  version: number;
  tables: readonly ProjectionTable[];
  /** CREATE statements for the tables and indexes, inside `schema` (a quoted identifier). */
  ddl(schema: string): string[];
  views: readonly ReadView[];
}

/**
 * Runs groups at once, each in its own transaction and connection (ProjectionDefinition.finishBuild):
 * a group is statements run in turn, or a function given the connection (its transaction open).
 */
export type RunApart = (groups: readonly ApartGroup[]) => Promise<void>;
export type ApartGroup = readonly string[] | ((c: SqlTx) => Promise<void>);

/** A read model: its name, its current version, and how to apply events to a build of it. */
export interface ProjectionDefinition {
  name: string;
  schema: ProjectionSchemaVersion;
  /**
   * The event types the handler reads; the consumer skips the others without parsing them (they
   * still advance the checkpoint). Unset = every type. A poison event of a type not listed is
   * never seen, so never dead-lettered, by this projection's groups.
   */
  eventTypes?: readonly HadronEvent['type'][];
  /** The batch handler writing into the build whose schema is `schema` (a quoted identifier). */
  createHandler(schema: string): BatchHandler;
  /**
   * Optional bulk path of a replay: the handler of the batches a build applies while it is
   * `building` (nobody reads it yet). It may leave out tables derivable from the others, which
   * `finishBuild` then writes in one set-based pass once the replay has caught up
   * (BuildRegistry.finish, or else inside the switch), before the build becomes active: a batch in
   * flight commits first (the build's registry row is locked), and every later batch goes to
   * `createHandler`'s handler. It must accept what `createHandler`'s `prepare` returns.
   * `finishBuild` must be total: it may also find rows an older handler wrote.
   * `apart` runs groups of statements at once, each group in its own transaction on its own
   * connection (a set-based pass per core), and resolves when all have committed: only for tables
   * that `tx` has not touched and nothing else writes before the finish commits. Should the finish
   * fail, groups may have committed: the next finish starts over (it must truncate what it fills).
   */
  createBuildingHandler?(schema: string): BatchHandler;
  finishBuild?(tx: SqlTx, schema: string, apart: RunApart): Promise<void>;
  /**
   * Released older versions this code can still apply. While a build of the current version
   * replays in place, an active build of one of these keeps consuming, so served data stays fresh.
   */
  previousVersions?: readonly ProjectionDefinition[];
  /**
   * Optional wall-clock maintenance (e.g. 24 h stats): run by the runner every `refreshEveryMs`
   * on the active build, and inside the switch transaction on a build about to become active.
   */
  refresh?(tx: SqlTx, schema: string, nowSec: number): Promise<void>;
  refreshEveryMs?: number;
}

/**
 * An event the projection can never apply: the consumer dead-letters it with this message. Any
 * other error a handler throws stalls the consumer instead (see CheckpointedBatch).
 */
export class PoisonEventError extends Error {
  override readonly name = 'PoisonEventError';
  readonly [POISON_EVENT] = true;
  constructor(eventId: string, reason: string) {
    super(`event ${eventId}: ${reason}`);
  }
}
