export * from './envelope';
export * from './pool-discovered.v1';
export * from './midprice-updated.v1';
export * from './swap-executed.v1';
export * from './vault-balances-changed.v1';
export * from './fee-split-changed.v1';
export * from './token-metadata-changed.v1';
export * from './hadron-event';
