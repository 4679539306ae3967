export * from './common.dto';
export * from './pool-list.dto';
export * from './pool-fees.dto';
export * from './midprice-history.dto';
export * from './volume-history.dto';
