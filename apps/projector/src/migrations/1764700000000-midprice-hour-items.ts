import type { MigrationInterface, QueryRunner } from 'typeorm';
import { olderBuildViews } from '../projections/midprice/midprice.schema';
import { replaceServedMidpriceViews } from './served-midprice-views';

/**
 * Midprice v6 stores on each hourly row the samples of the 5 and 30 minutes inside it
 * (`five_minute_items`, `thirty_minute_items`), which the API's 5m and 30m history reads for whole
 * hours. On a database whose served midprice build is older (a fresh database starts with v1; an
 * upgrade from the previous release serves v5 while v6 replays beside it), `read.midprice_hourly`
 * gains both columns derived from the served build's five-minute rows (the same text, written by
 * Postgres from the same rows), so the API's one query reads the same views whichever version is
 * served. The columns are appended (CREATE OR REPLACE keeps the others as they are); v6's switch
 * replaces the views with views of its tables.
 */
export class MidpriceHourItems1764700000000 implements MigrationInterface {
  name = 'MidpriceHourItems1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await replaceServedMidpriceViews(q, [1, 2, 3, 4, 5], (v) => olderBuildViews(v as 1 | 2 | 3 | 4 | 5));
  }

  async down(): Promise<void> {
    // The appended columns stay: the previous release names the columns it reads, and its next
    // switch recreates the views as it defines them.
  }
}
