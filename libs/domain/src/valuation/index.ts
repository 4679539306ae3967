export * from './tvl';
export * from './swap-valuation';
export * from './fee-split';
export * from './swap-checks';
