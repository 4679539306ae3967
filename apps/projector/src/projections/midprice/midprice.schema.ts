import {
  BASE58_PATTERN_SQL,
  quotedBase58,
  sampleJsonOfNumbersSql,
  sampleJsonRestSql,
  sampleJsonSql,
  toJsonText,
} from '@hadron/contracts/read/midprice-sample-json';
import type { ProjectionSchemaVersion, ReadView } from '../../projection';
import { sqlBucket } from '../../sql/identifiers';
import { newestFirst } from './midprice.shared';

const Q32 = '4294967296';

/**
 * The points table; with `numbersJson` (v7), each point also holds the JSON of its two Q32 numbers
 * as the API writes them (`midprice_json`, `spread_factor_json`: `null` for none), written by the
 * projector with them (q32Json, the API's own formula), and refuses a signature that is not base58,
 * so that its JSON value is the text quoted (`quotedBase58`; the event contract admits only base58
 * signatures anyway). With `rawPageKey` (v9), the primary key is a raw page's order, newest first
 * read backwards, and holds what the page's JSON is made of (RAW_PAGE_KEY).
 */
const pointsTable = (s: string, numbersJson = false, rawPageKey = false) => `CREATE TABLE ${s}.midprice_points (
      cluster text NOT NULL,
      pool text NOT NULL,
      ts bigint NOT NULL,
      id text NOT NULL,
      block_time bigint,
      slot bigint NOT NULL,
      tx_index integer NOT NULL,
      ix_index integer NOT NULL,
      inner_index integer NOT NULL,
      signature text,
      instruction text NOT NULL,
      sequence numeric(20,0) NOT NULL,
      midprice_q32 numeric(20,0),
      spread_factor_q32 numeric(20,0),${
        numbersJson
          ? `
      midprice_json text NOT NULL,
      spread_factor_json text NOT NULL,
      CHECK (signature ~ ${BASE58_PATTERN_SQL}),`
          : ''
      }
      PRIMARY KEY ${rawPageKey ? `${RAW_PAGE_KEY}) WITH (${KEEP_VISIBLE})` : '(cluster, pool, ts, id))'}`;

/**
 * v9's points key: the API's raw page (`ORDER BY ts DESC, slot DESC, tx_index DESC, ix_index DESC,
 * inner_index DESC, id DESC`, each sample's JSON from `ts`, `slot`, the numbers' JSON and the
 * signature) is an index-only scan of it, in its order, with no sort and no visit to the table. The
 * projector writes the points in the log's order, time across pools, so a pool's points lie one
 * to a table page: through v8's key, a page of 200 points read 231 buffers (Postgres 1.03 ms),
 * through this one 18 (0.37 ms; docs/performance-record.md, 2026-12-02, afternoon). Unique as
 * before: it holds `id`, itself unique in its cluster (uniquePointId, the writes' conflict arbiter).
 */
const RAW_PAGE_KEY = '(cluster, pool, ts, slot, tx_index, ix_index, inner_index, id) INCLUDE (signature, midprice_json, spread_factor_json)';

/**
 * An index-only scan still visits a table page that is not yet marked all-visible, and the newest
 * points (the API's default raw page) are on those: autovacuum marks the points' new pages every
 * 10,000 inserted rows (at most once a minute, its naptime, each run reading only the pages not yet
 * marked), instead of the default's every fifth of the table.
 */
const KEEP_VISIBLE = 'autovacuum_vacuum_insert_threshold = 10000, autovacuum_vacuum_insert_scale_factor = 0';

/**
 * A last point's sample as text, all but its timestamp (the bucket): `<slot> <midprice_q32>
 * <spread_factor_q32> <signature>`, an empty field for a null number, the signature as its JSON
 * value (`null`, or the string quoted and escaped by Postgres's to_json). The API's sampled history
 * writes a sample line as `<bucket> <tail>` (its sampleLine). `json` writes a text column's JSON:
 * `to_json` in a view; in a generated column, which takes only immutable functions, the build's
 * own `json_text` (JSON_TEXT_FUNCTION), to_json of a text being immutable in fact.
 */
export const sampleTail = (json: (column: string) => string): string =>
  `slot::text || ' ' || coalesce(midprice_q32::text, '') || ' ' || coalesce(spread_factor_q32::text, '') || ' ' || coalesce(${json('signature')}, 'null')`;

/** The tail of a build without the stored column (v1 … v3), derived in its views. */
const DERIVED_TAIL = `${sampleTail(toJsonText)} AS tail`;

/** A build's `json_text(text)`: the JSON of a text (null for null), usable in a generated column. */
const JSON_TEXT_FUNCTION = (s: string) =>
  `CREATE FUNCTION ${s}.json_text(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT pg_catalog.to_json(t)::text $$`;

/**
 * v5's stored `sample_json` (sampleJsonRestSql): the signature's JSON through the build's
 * json_text only when it holds a character JSON escapes (never for a base58 signature; a
 * function call costs more than the test), else just quoted.
 */
const storedSampleJson = (s: string) => sampleJsonRestSql((c) => `CASE WHEN ${c} ~ '[[:cntrl:]"\\\\]' THEN ${s}.json_text(${c}) ELSE '"' || ${c} || '"' END`);

/** What a last-point table stores besides its row: v4's `tail`, v5's `sample_json` too. */
type Stored = 'none' | 'tail' | 'tail and sample_json';

const lastPointTable = (s: string, table: string, bucketCol: string, stored: Stored = 'none') => `CREATE TABLE ${s}.${table} (
      cluster text NOT NULL,
      pool text NOT NULL,
      ${bucketCol} bigint NOT NULL,
      ts bigint NOT NULL,
      slot bigint NOT NULL,
      tx_index integer NOT NULL,
      ix_index integer NOT NULL,
      inner_index integer NOT NULL,
      signature text,
      midprice_q32 numeric(20,0),
      spread_factor_q32 numeric(20,0),
      point_id text NOT NULL,${stored === 'none' ? '' : `\n      tail text NOT NULL GENERATED ALWAYS AS (${sampleTail((c) => `${s}.json_text(${c})`)}) STORED,`}${
        stored === 'tail and sample_json' ? `\n      sample_json text NOT NULL GENERATED ALWAYS AS (${storedSampleJson(s)}) STORED,` : ''
      }
      PRIMARY KEY (cluster, pool, ${bucketCol}))`;

/** The sample JSON of a build without the stored column (v1 … v4), derived in its views. */
const DERIVED_SAMPLE_JSON = `${sampleJsonRestSql(toJsonText)} AS sample_json`;

/** A column a view reads from its build's table (`stored`), derives, or does not have (a release before it). */
type Served = 'stored' | 'derived' | 'none';

/**
 * `tail` (v4's stored column) and `sample_json` (v5's), each stored, derived for an older build,
 * or none (v1 … v3 as released: their views are frozen). `hourItems` (the hourly view only): v6's
 * five_minute_items and thirty_minute_items, stored, or derived by `derivedHourItems` from the
 * build's five-minute rows (`fiveMinutes(s)`, a relation with their sample JSON).
 */
const lastPointView = (
  table: string,
  bucketCol: string,
  tail: Served = 'none',
  sampleJson: Served = 'none',
  hourItems: { served: 'stored' } | { served: 'derived'; fiveMinutes: (s: string) => string } | { served: 'none' } = { served: 'none' },
) => ({
  name: table,
  select: (s: string) => `SELECT cluster, pool, ${bucketCol}, ts, slot, tx_index, ix_index, inner_index, signature,
    midprice_q32, spread_factor_q32, trim_scale(midprice_q32 / ${Q32}::numeric) AS midprice, trim_scale(spread_factor_q32 / ${Q32}::numeric) AS base_spread_factor,
    point_id${tail === 'stored' ? ', tail' : tail === 'derived' ? `, ${DERIVED_TAIL}` : ''}${
      sampleJson === 'stored' ? ', sample_json' : sampleJson === 'derived' ? `, ${DERIVED_SAMPLE_JSON}` : ''
    }${
      hourItems.served === 'stored'
        ? `, ${HOUR_ITEMS.join(', ')} FROM ${s}.${table}`
        : hourItems.served === 'derived'
          ? `, ${HOUR_ITEMS.join(', ')} FROM ${s}.${table} h LEFT JOIN LATERAL (${derivedHourItems(hourItems.fiveMinutes(s))}) i ON true`
          : ` FROM ${s}.${table}`
    }`,
});

/** v6's columns of an hourly row: the samples of the 5 and 30 minutes inside it (hourItemsSql). */
const HOUR_ITEMS = ['five_minute_items', 'thirty_minute_items'] as const;

/**
 * The samples of the timeframes below an hour that an hour holds whole, per hour of `from` (a
 * FROM clause naming `f` a relation of five-minute rows with their `sample_json`): 5m, each
 * five-minute row's sample (its timestamp the five minutes' start), and 30m, the last of the
 * hour's five-minute rows in each half hour by chain position (its timestamp the half hour's
 * start), each joined by commas in time order: exactly the `data` items the API's sampled history
 * would write for those buckets, so a whole hour of 5m (12 samples) is read as one value. An hour
 * has a five-minute row whenever it has a point, so neither is ever null on an hourly row.
 */
export const hourItemsSql = (from: string): string => `SELECT cluster, pool, hour_start,
      string_agg(five_item, ',' ORDER BY five_minute_start) AS five_minute_items,
      string_agg(thirty_item, ',' ORDER BY five_minute_start) AS thirty_minute_items
    FROM (SELECT f.cluster, f.pool, f.five_minute_start, ${sqlBucket('f.five_minute_start', 3600)} AS hour_start,
            ${sampleJsonSql('f.five_minute_start', 'f.sample_json')} AS five_item,
            CASE WHEN row_number() OVER (PARTITION BY f.cluster, f.pool, ${sqlBucket('f.five_minute_start', 1800)}
                                         ORDER BY ${newestFirst('f.point_id')}) = 1
              THEN ${sampleJsonSql(sqlBucket('f.five_minute_start', 1800), 'f.sample_json')} END AS thirty_item
            FROM ${from}) x
    GROUP BY cluster, pool, hour_start`;

/**
 * An older build's hour items, both from one pass over the hour's five-minute rows `fiveMinutes`
 * (O(12 rows) per hour): the lateral subquery of its hourly view (aliased `h`), none for an hour
 * without them.
 */
const derivedHourItems = (fiveMinutes: string): string =>
  `SELECT ${HOUR_ITEMS.join(', ')} FROM (${hourItemsSql(`(${fiveMinutes}) f
      WHERE f.cluster = h.cluster AND f.pool = h.pool AND f.five_minute_start >= h.hour_start AND f.five_minute_start < h.hour_start + 3600`)}) x`;

/**
 * `read.midprice_points`, with each point's sample JSON but the opening timestamp (`sample_json`,
 * as the last-point views have it): from v7's stored numbers and the signature quoted (`stored`),
 * derived (an older build), or none (v1 … v6 as released).
 */
const pointsView = (sampleJson: Served): ReadView => ({
  name: 'midprice_points',
  select: (s) => `SELECT cluster, pool, ts, id, block_time, slot, tx_index, ix_index, inner_index, signature, instruction,
        sequence, midprice_q32, spread_factor_q32, trim_scale(midprice_q32 / ${Q32}::numeric) AS midprice,
        trim_scale(spread_factor_q32 / ${Q32}::numeric) AS base_spread_factor${
          sampleJson === 'stored'
            ? `, ${sampleJsonOfNumbersSql('midprice_json', 'spread_factor_json', quotedBase58)} AS sample_json`
            : sampleJson === 'derived'
              ? `, ${DERIVED_SAMPLE_JSON}`
              : ''
        } FROM ${s}.midprice_points`,
});

/**
 * v1 of the `midprice` read model: every oracle update as a point (the field an instruction left
 * null carried forward from the pool's last known value), plus the last point of every minute
 * and hour, so sampled history costs O(buckets): every API timeframe (1m … 24h) is a multiple of
 * a minute, and 1h … 24h of an hour.
 */
export const midpriceSchemaV1: ProjectionSchemaVersion = {
  version: 1,
  tables: [
    { name: 'midprice_points', key: ['cluster', 'pool', 'ts', 'id'] },
    { name: 'midprice_minute', key: ['cluster', 'pool', 'minute_start'] },
    { name: 'midprice_hourly', key: ['cluster', 'pool', 'hour_start'] },
    { name: 'midprice_state', key: ['cluster', 'pool'] },
  ],
  ddl: (s) => [
    pointsTable(s),
    lastPointTable(s, 'midprice_minute', 'minute_start'),
    lastPointTable(s, 'midprice_hourly', 'hour_start'),
    // Carry-forward state per pool (last known value of each field, with its chain position).
    `CREATE TABLE ${s}.midprice_state (
      cluster text NOT NULL,
      pool text NOT NULL,
      midprice_q32 numeric(20,0),
      midprice_pos int8[],
      spread_factor_q32 numeric(20,0),
      spread_factor_pos int8[],
      PRIMARY KEY (cluster, pool))`,
  ],
  views: [pointsView('none'), lastPointView('midprice_minute', 'minute_start'), lastPointView('midprice_hourly', 'hour_start')],
};

/** v2 …: idempotency by event id whatever the block time of a copy (the primary key holds ts). */
const uniquePointId = (s: string) => `CREATE UNIQUE INDEX ON ${s}.midprice_points (cluster, id)`;

/**
 * v2 …: per pool, the latest spread (by chain position) from updates (their own value, or the
 * value after them) and, apart, from snapshots: a snapshot is often read after the history it is
 * published before, so it must not hide the updates that precede it.
 */
const stateTableV2 = (s: string) => `CREATE TABLE ${s}.midprice_state (
      cluster text NOT NULL,
      pool text NOT NULL,
      spread_factor_q32 numeric(20,0),
      spread_factor_pos int8[],
      snapshot_spread_factor_q32 numeric(20,0),
      snapshot_spread_factor_pos int8[],
      PRIMARY KEY (cluster, pool))`;

/**
 * v2 of the `midprice` read model. Same views and columns as v1; what changed is what a point is:
 * - only updates that set the midprice (UpdateMidprice, UpdateMidpriceAndBaseSpread) are points,
 *   and only they can be a minute's or an hour's last point; a spread-only UpdateBaseSpread
 *   changes the spread carried to later points and makes no point;
 * - the spread of an UpdateMidprice point is the oracle's value after the update as the indexer
 *   tracked it (`spreadFactorAfterQ32`) when the event has it; otherwise it is carried only from
 *   a source positioned strictly before the point in chain order (an earlier update, or a
 *   snapshot read before it), never from a snapshot read later: null when none is known;
 * - an event id is applied once even if a copy arrives with another block time (unique
 *   (cluster, id)); a copy with a different payload is refused as a poison event.
 */
export const midpriceSchemaV2: ProjectionSchemaVersion = {
  version: 2,
  tables: midpriceSchemaV1.tables,
  ddl: (s) => [
    pointsTable(s),
    uniquePointId(s),
    lastPointTable(s, 'midprice_minute', 'minute_start'),
    lastPointTable(s, 'midprice_hourly', 'hour_start'),
    stateTableV2(s),
  ],
  views: midpriceSchemaV1.views,
};

/**
 * v3 of the `midprice` read model: v2's points and rules, plus the last point of every 5 minutes
 * (`midprice_five_minute`), so a sampled query of 5 or 30 minutes reads one row per 5 minutes
 * instead of one per minute (v2 read every minute of a 30-minute bucket).
 */
export const midpriceSchemaV3: ProjectionSchemaVersion = {
  version: 3,
  tables: [...midpriceSchemaV2.tables, { name: 'midprice_five_minute', key: ['cluster', 'pool', 'five_minute_start'] }],
  ddl: (s) => [...midpriceSchemaV2.ddl(s), lastPointTable(s, 'midprice_five_minute', 'five_minute_start')],
  views: [...midpriceSchemaV2.views, lastPointView('midprice_five_minute', 'five_minute_start')],
};

/** The last-point tables (v3 …): each with its bucket, and the (finer) table a replay's finish fills it from. */
export const LAST_POINT_TABLES = [
  { table: 'midprice_minute', bucketCol: 'minute_start', size: 60, from: 'midprice_points', idCol: 'id' },
  { table: 'midprice_five_minute', bucketCol: 'five_minute_start', size: 300, from: 'midprice_minute', idCol: 'point_id' },
  { table: 'midprice_hourly', bucketCol: 'hour_start', size: 3600, from: 'midprice_five_minute', idCol: 'point_id' },
] as const;

/** v4 …: the tables and the order of their DDL, each last-point table storing `stored` (v7: the points their numbers' JSON). */
const lastPointsDdl = (s: string, stored: Stored, numbersJson = false, rawPageKey = false): string[] => [
  JSON_TEXT_FUNCTION(s),
  pointsTable(s, numbersJson, rawPageKey),
  uniquePointId(s),
  stateTableV2(s),
  ...LAST_POINT_TABLES.map((t) => lastPointTable(s, t.table, t.bucketCol, stored)),
];

/**
 * v4 of the `midprice` read model: v3's points, rules and tables, each last point (minute,
 * 5 minutes, hour) also holding its sample's text but the timestamp (`tail`, sampleTail),
 * generated by Postgres as the row is written: the API's sampled history sends a day of 5m
 * samples (288 rows) without formatting the numbers and signature of each row on every request.
 */
export const midpriceSchemaV4: ProjectionSchemaVersion = {
  version: 4,
  tables: midpriceSchemaV3.tables,
  ddl: (s) => lastPointsDdl(s, 'tail'),
  views: [pointsView('none'), ...LAST_POINT_TABLES.map((t) => lastPointView(t.table, t.bucketCol, 'stored'))],
};

/**
 * v5 of the `midprice` read model: v4's points, rules and tables, each last point also holding
 * its sample's JSON but the opening timestamp (`sample_json`, sampleJsonRestSql), generated by
 * Postgres as the row is written: the API's sampled history joins a day of 5m samples in
 * Postgres and writes none itself (v4's `tail` stays, read by the previous release's API).
 */
export const midpriceSchemaV5: ProjectionSchemaVersion = {
  version: 5,
  tables: midpriceSchemaV3.tables,
  ddl: (s) => lastPointsDdl(s, 'tail and sample_json'),
  views: [pointsView('none'), ...LAST_POINT_TABLES.map((t) => lastPointView(t.table, t.bucketCol, 'stored', 'stored'))],
};

/**
 * `read.midprice_five_minute` of a build without that table (v1, v2): the last of the minutes'
 * last points in each 5 minutes, by chain position. Exact, the same columns as v3's table; each
 * query reads the pool's minute rows (O(the pool's minutes)), like the derived fee views of swaps.
 * With `sampleJson` false, as released with v4 (migration 1764500000000).
 */
const fiveMinuteFromMinutes = (sampleJson: boolean): ReadView => ({
  name: 'midprice_five_minute',
  select: (s) => `SELECT DISTINCT ON (cluster, pool, ${sqlBucket('minute_start', 300)}) cluster, pool, ${sqlBucket('minute_start', 300)} AS five_minute_start,
    ts, slot, tx_index, ix_index, inner_index, signature, midprice_q32, spread_factor_q32,
    trim_scale(midprice_q32 / ${Q32}::numeric) AS midprice, trim_scale(spread_factor_q32 / ${Q32}::numeric) AS base_spread_factor, point_id,
    ${DERIVED_TAIL}${sampleJson ? `, ${DERIVED_SAMPLE_JSON}` : ''}
    FROM ${s}.midprice_minute ORDER BY cluster, pool, 3, ${newestFirst('point_id')}`,
});

/**
 * The views of an older build (v1 … v6) in this release: v7's set and columns, what the build
 * does not store derived. With `sampleJson` false, v4's release as it served v1 … v3 (the tail
 * derived; migration 1764500000000 keeps it so); with `hourItems` false, v5's release as it
 * served v1 … v4 (migration 1764600000000). The points view has its sample JSON derived: those
 * migrations replace only the last-point views, so they still create what they created before.
 */
export function olderBuildViews(version: 1 | 2 | 3 | 4 | 5 | 6, sampleJson = true, hourItems = true): ReadView[] {
  const tail: Served = version >= 4 ? 'stored' : 'derived';
  const json: Served = version >= 5 ? 'stored' : sampleJson ? 'derived' : 'none';
  const fiveMinutes = (withJson: Served): ReadView =>
    version >= 3 ? lastPointView('midprice_five_minute', 'five_minute_start', tail, withJson) : fiveMinuteFromMinutes(withJson !== 'none');
  const withJson = fiveMinutes(version >= 5 ? 'stored' : 'derived');
  return [
    pointsView('derived'),
    lastPointView('midprice_minute', 'minute_start', tail, json),
    lastPointView(
      'midprice_hourly',
      'hour_start',
      tail,
      json,
      !hourItems ? { served: 'none' } : version === 6 ? { served: 'stored' } : { served: 'derived', fiveMinutes: withJson.select },
    ),
    fiveMinutes(json),
  ];
}

/**
 * v6 of the `midprice` read model: v5's points, rules and tables, each hourly row also holding
 * the samples of the 5 and 30 minutes inside it (`five_minute_items`, `thirty_minute_items`,
 * hourItemsSql), written with the hour's five-minute rows (a batch rewrites the hours it
 * touched; a replay's finish writes them all): the API's 5m and 30m history reads one row per
 * whole hour instead of twelve (5m) or picking among twelve (30m). An hour's items (about 2 KB)
 * are stored as Postgres stores any text, compressed inline (pglz, to about a quarter): keeping
 * them uncompressed (`toast_tuple_target` 8160) made the table 2.3× larger and the reads no faster
 * (docs/performance-record.md, 2026-11-29 afternoon).
 */
export const midpriceSchemaV6: ProjectionSchemaVersion = {
  version: 6,
  tables: midpriceSchemaV3.tables,
  ddl: (s) => v6Ddl(s),
  views: v6Views('none'),
};

/** v6's DDL, v7's (`numbersJson`) and v9's (`rawPageKey` too). */
function v6Ddl(s: string, numbersJson = false, rawPageKey = false): string[] {
  return [
    ...lastPointsDdl(s, 'tail and sample_json', numbersJson, rawPageKey),
    `ALTER TABLE ${s}.midprice_hourly ADD COLUMN five_minute_items text, ADD COLUMN thirty_minute_items text`,
  ];
}

/** v6's views, and v7's: the points view with its sample JSON as `pointJson` says. */
function v6Views(pointJson: Served): ReadView[] {
  return [
    pointsView(pointJson),
    ...LAST_POINT_TABLES.map((t) =>
      lastPointView(t.table, t.bucketCol, 'stored', 'stored', t.table === 'midprice_hourly' ? { served: 'stored' } : { served: 'none' }),
    ),
  ];
}

/**
 * v7 of the `midprice` read model: v6's rules and tables, each point also holding the JSON of its
 * midprice and spread factor (`midprice_json`, `spread_factor_json`, written by the projector; the
 * points refuse a signature that is not base58): `read.midprice_points` gives each point's `sample_json` from them and the
 * signature quoted, so the API's raw history joins a page of samples in Postgres and writes none
 * itself (a page of 200 points was 200 lines the API parsed and wrote as JSON, and Postgres wrote
 * each signature's JSON with `to_json`). The numbers alone are stored, not the sample's keys: about
 * 40 bytes a point instead of 100.
 */
export const midpriceSchemaV7: ProjectionSchemaVersion = {
  version: 7,
  tables: midpriceSchemaV3.tables,
  ddl: (s) => v6Ddl(s, true),
  views: v6Views('stored'),
};

/**
 * v8 of the `midprice` read model: v7's tables and views, replayed with the points' carried spread
 * right under copies. Before it, a copy of a pool's latest point delivered in a later batch (Kafka
 * keeps re-appends) set the pool's carried spread back to an older snapshot's, which the pool's
 * next points without After fields took. A v7 build consumed from Kafka may hold such points; the
 * upgrade replays every build (v7 keeps serving meanwhile).
 */
export const midpriceSchemaV8: ProjectionSchemaVersion = { ...midpriceSchemaV7, version: 8 };

/**
 * v9 of the `midprice` read model: v8's rules, columns and views, the points keyed by the API's
 * raw page (RAW_PAGE_KEY) and vacuumed as they come (KEEP_VISIBLE). A key cannot be changed on a
 * table in place without rewriting it under a lock, so the upgrade replays every build (v8 keeps
 * serving meanwhile).
 */
export const midpriceSchemaV9: ProjectionSchemaVersion = { ...midpriceSchemaV8, version: 9, ddl: (s) => v6Ddl(s, true, true) };

/** How a v6 build is served by this release: v6's tables, the points' sample JSON derived. */
export const midpriceSchemaV6Served: ProjectionSchemaVersion = { ...midpriceSchemaV6, views: olderBuildViews(6) };

/** How a v5 build is served by this release: v5's tables, the hour items derived. */
export const midpriceSchemaV5Served: ProjectionSchemaVersion = { ...midpriceSchemaV5, views: olderBuildViews(5) };

/** How a v4 build is served by this release: v4's tables, the sample JSON derived. */
export const midpriceSchemaV4Served: ProjectionSchemaVersion = { ...midpriceSchemaV4, views: olderBuildViews(4) };

/** How a v3 build is served by this release: v3's tables, the tail and the sample JSON derived. */
export const midpriceSchemaV3Served: ProjectionSchemaVersion = { ...midpriceSchemaV3, views: olderBuildViews(3) };

/** How a v2 build is served by this release: v2's tables, the five-minute rows, the tail and the sample JSON derived. */
export const midpriceSchemaV2Served: ProjectionSchemaVersion = { ...midpriceSchemaV2, views: olderBuildViews(2) };

/** How a v1 build is served by this release: v1's tables, the five-minute rows, the tail and the sample JSON derived. */
export const midpriceSchemaV1Served: ProjectionSchemaVersion = { ...midpriceSchemaV1, views: olderBuildViews(1) };
