/** Public entry of the API app (the composition roots in apps/main and the API's main.ts use it). */
export { apiEnvSchema, apiEnvShape, type ApiConfig } from './api.config';
export { createApiApp, type ApiAppDeps } from './api.module';
export { drainApiApp } from './health/drain';
export { listenApi } from './health/listen';
export { openReadPool } from './database/read-pool';
