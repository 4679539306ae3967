// What the projector's composition root (main.ts) and other deployables use.
export { ProjectorRunner, type ProjectorRunnerOptions, type ProjectorLag, type ProjectionLag } from './runner/projector-runner';
export type { ConsumerFactory } from './runner/build-worker';
export { projectorMigrations } from './migrations';
export { PromProjectorMetrics, noMetrics, type ProjectorMetrics } from './metrics/projector-metrics';
export { ALL_PROJECTIONS, projectionByName } from './projections';
/** Released older versions (what a database serves until the in-place upgrade switches): for tests of that window. */
export { swapsProjectionV1, swapsProjectionV2 } from './projections/swaps/swaps.projection';
/** The swaps running totals as set-based SQL over a build's swaps (the API bench's dataset fills v3's tables with it). */
export { runningViewsFromSwaps } from './projections/swaps/swaps.schema';
export { midpriceProjectionV1 } from './projections/midprice/midprice-v1.projection';
export { rebuildProjection, formatProgress, type RebuildOptions, type RebuildResult, type RebuildProgress } from './replay/rebuild';
export { BuildRegistry, type BuildRecord } from './builds/build-registry';
export type { ProjectionDefinition } from './projection';
export { startProjector, projectorEnvShape, projectorEnvSchema, type ProjectorConfig, type RunningProjector } from './projector.app';
