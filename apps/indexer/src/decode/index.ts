export * from './decode-context';
export * from './decode-transaction';
export * from './rpc-transaction';
export * from './transaction-facts';
export { servedTransactionProblem } from './transaction-shape';
