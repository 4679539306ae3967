import type { MigrationSet } from '@hadron/platform/database/migrate';
import { Projector1763900000000 } from './1763900000000-projector';
import { ReadContract1764100000000 } from './1764100000000-read-contract';
import { FeeRunningTotals1764200000000 } from './1764200000000-fee-running-totals';
import { MidpriceFiveMinute1764300000000 } from './1764300000000-midprice-five-minute';
import { BuildFinished1764400000000 } from './1764400000000-build-finished';
import { MidpriceSampleTail1764500000000 } from './1764500000000-midprice-sample-tail';
import { MidpriceSampleJson1764600000000 } from './1764600000000-midprice-sample-json';
import { MidpriceHourItems1764700000000 } from './1764700000000-midprice-hour-items';
import { MidpricePointJson1764800000000 } from './1764800000000-midprice-point-json';

/** The projector's tables: build registry, `read` views, initial builds, the published read contract, the fee running-total views, the midprice five-minute view, when a replay's deferred tables were written, the midprice sample tail, the midprice sample JSON, the midprice hour items, the midprice point JSON. Apply after eventLogMigrations. */
export const projectorMigrations: MigrationSet = {
  name: 'projector',
  tableName: 'projector_migrations',
  migrations: [
    Projector1763900000000,
    ReadContract1764100000000,
    FeeRunningTotals1764200000000,
    MidpriceFiveMinute1764300000000,
    BuildFinished1764400000000,
    MidpriceSampleTail1764500000000,
    MidpriceSampleJson1764600000000,
    MidpriceHourItems1764700000000,
    MidpricePointJson1764800000000,
  ],
};
