import pino from 'pino';
import type { Pool } from 'pg';
import { apiEnvSchema } from '../api.config';
import { createNestApp } from '../api.module';
import { buildOpenApiDocument } from './openapi.document';
import type { OpenAPIObject } from '@nestjs/swagger';

/** The document without a database: the app is created (never initialised) against a pool that refuses queries. */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const pool = { query: () => Promise.reject(new Error('no database while generating OpenAPI')) } as unknown as Pool;
  const app = await createNestApp({ pool, config: apiEnvSchema.parse({}), logger: pino({ level: 'silent' }) }, false);
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

/** Stable text of the committed file. */
export function openApiText(doc: OpenAPIObject): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}
