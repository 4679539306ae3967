import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { createLogger } from '@hadron/platform/logging/logger';
import { createPool } from '@hadron/platform/database/pool';
import { apiEnvSchema, createApiApp } from '../src';

/**
 * The servers under test, each in its own process (the load generator must not share the
 * server's event loop). A child reports its port to the parent over IPC.
 */
export async function serveApi(databaseUrl: string, env = '{}'): Promise<void> {
  const pool = createPool(databaseUrl, { max: 20, application: 'api-bench' }); // as the API's main.ts
  const app = await createApiApp({ pool, config: apiEnvSchema.parse(JSON.parse(env)), logger: createLogger('api-bench', 'warn') });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ port: (app.getHttpServer().address() as { port: number }).port });
}

/** Bare Fastify: the same pool-list JSON from memory, as an object (serialized per request) and as a string. */
export async function serveBare(jsonFile: string): Promise<void> {
  const text = readFileSync(jsonFile, 'utf8');
  const object: unknown = JSON.parse(text);
  const app = Fastify({ logger: false });
  app.get('/pools', async () => object);
  app.get('/pools-text', (_req, reply) => reply.type('application/json; charset=utf-8').send(text));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ port: (app.server.address() as { port: number }).port });
}
