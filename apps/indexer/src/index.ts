// What the indexer's composition root (main.ts) and other deployables (apps/main) use.
export { startIndexer, type RunningIndexer } from './indexer.app';
export { indexerEnvShape, indexerEnvSchema, clusterSettings, type IndexerConfig, type ClusterSettings } from './config/indexer.config';
export { indexerMigrations } from './store/migrations';
export { IndexerMetrics } from './metrics/indexer-metrics';
export type { ClusterStatus } from './pipeline/cluster-indexer';
export { DECODER_VERSION } from './pipeline/event-builder';
