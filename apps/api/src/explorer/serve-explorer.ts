import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HttpException, NotFoundException } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { sendErrorBody, toErrorBody } from '../http/api-exception.filter';

/** The only files of the bundle the page loads (built by apps/api/explorer/build.js). */
const ASSETS: Record<string, string> = {
  'explorer.js': 'application/javascript; charset=utf-8',
  'explorer.css': 'text/css; charset=utf-8',
};
const INDEX = 'index.html';
const NOT_BUILT = 'The explorer page is not built: run `npm run build` (npm start, npm run demo and start:api build it)';

/**
 * Where `npm run build` writes the bundle: dist/apps/api/explorer. Compiled, this file is
 * dist/apps/api/src/explorer/serve-explorer.js; run from source (ts-jest, register-ts), the
 * repository's dist/ is the only place a bundle can be.
 */
export function defaultExplorerDir(): string {
  const compiled = resolve(__dirname, '../../explorer');
  return existsSync(join(compiled, INDEX)) && existsSync(join(compiled, 'explorer.js')) ? compiled : resolve(__dirname, '../../../../dist/apps/api/explorer');
}

interface Bundle {
  html: string;
  assets: Map<string, Buffer>;
}

/**
 * Reads the bundle once. The page's asset URLs carry a hash of their contents (`?v=`), so the
 * assets are cached for a year and a rebuilt page never runs a stale script; the page itself is
 * revalidated on every load.
 */
function loadBundle(dir: string): Bundle | undefined {
  if (!existsSync(join(dir, INDEX)) || !Object.keys(ASSETS).every((name) => existsSync(join(dir, name)))) return undefined;
  const assets = new Map(Object.keys(ASSETS).map((name) => [name, readFileSync(join(dir, name))]));
  let html = readFileSync(join(dir, INDEX), 'utf8');
  for (const [name, body] of assets) {
    html = html.replaceAll(`/explorer/${name}"`, `/explorer/${name}?v=${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`);
  }
  return { html, assets };
}

/**
 * The explorer page at `/` and its two assets at `/explorer/<file>`, from the bundle `npm run build`
 * writes (no static-file server: a fixed whitelist, read once; see serveOpenApi for why not
 * @fastify/static). Without a bundle (e.g. tests run from source without a build) both answer 503
 * saying how to build it, and a bundle built later is picked up by the next request.
 */
export function serveExplorer(app: NestFastifyApplication, dir: string = defaultExplorerDir()): void {
  const fastify = app.getHttpAdapter().getInstance();
  let bundle: Bundle | undefined;
  const current = (): Bundle | undefined => (bundle ??= loadBundle(dir));
  // The one 5xx whose message is shown: it is ours, says what to do, and carries nothing internal.
  const notBuilt = (reply: FastifyReply) =>
    sendErrorBody(reply.header('cache-control', 'no-store'), { ...toErrorBody(new HttpException('', 503)), message: NOT_BUILT });

  fastify.get('/', (_req, reply) => {
    const b = current();
    if (!b) return notBuilt(reply);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(b.html);
  });
  fastify.get<{ Params: { asset: string } }>('/explorer/:asset', (req, reply) => {
    const name = req.params.asset;
    if (!Object.hasOwn(ASSETS, name)) return sendErrorBody(reply, toErrorBody(new NotFoundException()));
    const b = current();
    if (!b) return notBuilt(reply);
    return reply.type(ASSETS[name]).header('cache-control', 'public, max-age=31536000, immutable').send(b.assets.get(name));
  });
}
