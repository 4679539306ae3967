export * from './q32';
