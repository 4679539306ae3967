import type { MigrationInterface, QueryRunner } from 'typeorm';
import { olderBuildViews } from '../projections/midprice/midprice.schema';
import { replaceServedMidpriceViews } from './served-midprice-views';

/**
 * Midprice v7 stores the JSON of each point's two Q32 numbers (`midprice_json`,
 * `spread_factor_json`), and `read.midprice_points` gives each point's `sample_json`, which the API's raw history reads. On a
 * database whose served midprice build is older (a fresh database starts with v1; an upgrade from
 * the previous release serves v6 while v7 replays beside it), `read.midprice_points` gains the
 * column derived from the served build's points (the same text, written by Postgres from the same
 * row), so the API's one query reads the same view whichever version is served. The column is
 * appended (CREATE OR REPLACE keeps the others as they are); v7's switch replaces the views with
 * views of its tables.
 */
export class MidpricePointJson1764800000000 implements MigrationInterface {
  name = 'MidpricePointJson1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await replaceServedMidpriceViews(q, [1, 2, 3, 4, 5, 6], (v) => olderBuildViews(v as 1 | 2 | 3 | 4 | 5 | 6), { points: true });
  }

  async down(): Promise<void> {
    // The appended column stays: the previous release names the columns it reads, and its next
    // switch recreates the views as it defines them.
  }
}
