export * from './token-label';
