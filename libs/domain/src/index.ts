export * from './time';
export * from './valuation';
export * from './hadron';
export * from './math';
export * from './tokens';
