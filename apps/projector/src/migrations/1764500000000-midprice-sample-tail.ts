import type { MigrationInterface, QueryRunner } from 'typeorm';
import { olderBuildViews } from '../projections/midprice/midprice.schema';
import { replaceServedMidpriceViews } from './served-midprice-views';

/**
 * Midprice v4 stores each last point's sample text (`tail`), which the API's sampled history
 * reads. On a database whose served midprice build is older (a fresh database starts with v1; an
 * upgrade from the previous release serves v3 while v4 replays beside it), the last-point views
 * (`read.midprice_minute`, `…_five_minute`, `…_hourly`) gain the column derived from the served
 * build's rows, so the API's one query reads the same views whichever version is served. The
 * column is appended (CREATE OR REPLACE keeps the others as they are); v4's switch replaces the
 * views with views of its tables.
 */
export class MidpriceSampleTail1764500000000 implements MigrationInterface {
  name = 'MidpriceSampleTail1764500000000';

  async up(q: QueryRunner): Promise<void> {
    // The views as v4's release served older builds (the tail derived, no sample JSON).
    await replaceServedMidpriceViews(q, [1, 2, 3], (v) => olderBuildViews(v as 1 | 2 | 3, false, false));
  }

  async down(): Promise<void> {
    // The appended column stays: the previous release names the columns it reads, and its next
    // switch recreates the views as it defines them.
  }
}
