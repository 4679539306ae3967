/** COPY … FROM STDIN for benchmarks and bulk fixtures: the platform's (the projections stage their batches with it too). */
export { copyFrom, copyLine } from '@hadron/platform/database/copy-from';
