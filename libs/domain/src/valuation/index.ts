export * from './q32';
export * from './swap-valuation';
export * from './fee-split';
export * from './swap-checks';
