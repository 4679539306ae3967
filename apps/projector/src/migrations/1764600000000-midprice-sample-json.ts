import type { MigrationInterface, QueryRunner } from 'typeorm';
import { olderBuildViews } from '../projections/midprice/midprice.schema';
import { replaceServedMidpriceViews } from './served-midprice-views';

/**
 * Midprice v5 stores each last point's sample JSON (`sample_json`), which the API's sampled
 * history joins in Postgres. On a database whose served midprice build is older (a fresh database
 * starts with v1; an upgrade from the previous release serves v4 while v5 replays beside it), the
 * last-point views (`read.midprice_minute`, `…_five_minute`, `…_hourly`) gain the column derived
 * from the served build's rows (the same text, written by Postgres from the row's values), so the
 * API's one query reads the same views whichever version is served. The column is appended
 * (CREATE OR REPLACE keeps the others as they are); v5's switch replaces the views with views of
 * its tables.
 */
export class MidpriceSampleJson1764600000000 implements MigrationInterface {
  name = 'MidpriceSampleJson1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await replaceServedMidpriceViews(q, [1, 2, 3, 4], (v) => olderBuildViews(v as 1 | 2 | 3 | 4, true, false));
  }

  async down(): Promise<void> {
    // The appended column stays: the previous release names the columns it reads, and its next
    // switch recreates the views as it defines them.
  }
}
