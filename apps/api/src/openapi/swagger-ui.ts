import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { NotFoundException } from '@nestjs/common';
import { sendErrorBody, toErrorBody } from '../http/api-exception.filter';

/** The only swagger-ui-dist files the page loads. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>Hadron Pool Analytics API</title>
  <link rel="stylesheet" type="text/css" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-init.js"></script>
</body>
</html>
`;
const INIT_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/docs-json', dom_id: '#swagger-ui', deepLinking: true });
};
`;

/** swagger-ui-dist as @nestjs/swagger resolves it (its own dependency, pinned by it). */
function swaggerUiDist(): string {
  return dirname(require.resolve('swagger-ui-dist/package.json', { paths: [dirname(require.resolve('@nestjs/swagger'))] }));
}

/**
 * OpenAPI at /docs-json (and /docs-yaml) through SwaggerModule; Swagger UI at /docs served here:
 * Nest's UI path loads @fastify/static, whose ESM-only dependency (content-disposition 3) Jest
 * cannot load (Nest then calls process.exit) — and a page of three static files needs no
 * static-file server. Files are a fixed whitelist, read once.
 */
export function serveOpenApi(app: NestFastifyApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('docs', app, document, { ui: false, raw: ['json', 'yaml'], jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
  const fastify = app.getHttpAdapter().getInstance();
  const cache = new Map<string, Buffer>();
  fastify.get('/docs', (_req, reply) => reply.type('text/html; charset=utf-8').send(HTML));
  fastify.get('/docs/swagger-ui-init.js', (_req, reply) => reply.type('application/javascript; charset=utf-8').send(INIT_JS));
  fastify.get<{ Params: { asset: string } }>('/docs/:asset', (req, reply) => {
    const name = req.params.asset;
    if (!Object.hasOwn(ASSETS, name)) {
      return sendErrorBody(reply, toErrorBody(new NotFoundException()));
    }
    let body = cache.get(name);
    if (!body) cache.set(name, (body = readFileSync(join(swaggerUiDist(), name))));
    return reply.type(ASSETS[name]).header('cache-control', 'public, max-age=86400').send(body);
  });
}
