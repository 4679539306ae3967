export * from './buckets';
export * from './chain-position';
