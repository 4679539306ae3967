import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger } from '@hadron/platform/logging/logger';
import { apiEnvSchema } from '../../apps/api/src';
import { createNestApp } from '../../apps/api/src/api.module';
import { serveExplorer } from '../../apps/api/src/explorer/serve-explorer';
import { DATA_CSP, EXPLORER_CSP } from '../../apps/api/src/http/edge';
import { IN_PROCESS_API_ENV, inject, startApiHarness, type ApiHarness } from '../api/support/harness';
import { NOW } from '../api/support/dataset';

/**
 * How the API serves the explorer page's files (the page itself runs in explorer.e2e-spec.ts):
 * a fixed whitelist from the built bundle, content-hashed asset URLs, a clear 503 without a build,
 * the page's own CSP, and API_EXPLORER=false turning it off.
 */
describe('serving the explorer page', () => {
  let h: ApiHarness;
  const dirs: string[] = [];
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    h = await startApiHarness({ now: NOW });
  });
  afterAll(async () => {
    for (const a of apps) await a.close();
    await h?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The API's Nest app with the explorer served from `dir`. */
  async function appWithBundle(files: Record<string, string>): Promise<NestFastifyApplication> {
    const dir = mkdtempSync(join(tmpdir(), 'hadron-explorer-bundle-'));
    dirs.push(dir);
    for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
    const app = await createNestApp(
      { pool: h.db.pool, config: apiEnvSchema.parse({ ...IN_PROCESS_API_ENV }), logger: createLogger('explorer-e2e', 'silent') },
      false,
    );
    serveExplorer(app, dir);
    await app.init();
    apps.push(app);
    return app;
  }

  test('without a built bundle: / and the assets answer 503 saying to run npm run build; an unknown asset is 404', async () => {
    const app = await appWithBundle({});
    for (const url of ['/', '/explorer/explorer.js']) {
      const r = await inject(app, url);
      expect({ status: r.status, body: r.body }).toEqual({
        status: 503,
        body: expect.objectContaining({ statusCode: 503, message: expect.stringContaining('npm run build'), error: 'Service Unavailable' }),
      });
    }
    const unknown = await inject(app, '/explorer/../../package.json');
    expect(unknown.status).toBe(404);
    expect(await inject(app, '/explorer/secrets.js')).toMatchObject({ status: 404, body: { statusCode: 404, error: 'Not Found' } });
  });

  test('a built bundle: the page links its assets by content hash; assets are cached for a year, the page revalidated', async () => {
    const js = 'console.log("explorer")';
    const css = 'body{color:red}';
    const app = await appWithBundle({
      'index.html': '<link rel="stylesheet" href="/explorer/explorer.css"><script defer src="/explorer/explorer.js"></script>',
      'explorer.js': js,
      'explorer.css': css,
      'build.log': 'not served',
    });
    const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
    const page = await inject(app, '/');
    expect({ status: page.status, type: page.headers['content-type'], cache: page.headers['cache-control'] }).toEqual({
      status: 200,
      type: 'text/html; charset=utf-8',
      cache: 'no-cache',
    });
    expect(page.text).toBe(
      `<link rel="stylesheet" href="/explorer/explorer.css?v=${hash(css)}"><script defer src="/explorer/explorer.js?v=${hash(js)}"></script>`,
    );

    const asset = await inject(app, `/explorer/explorer.js?v=${hash(js)}`);
    expect({ status: asset.status, type: asset.headers['content-type'], cache: asset.headers['cache-control'], text: asset.text }).toEqual({
      status: 200,
      type: 'application/javascript; charset=utf-8',
      cache: 'public, max-age=31536000, immutable',
      text: js,
    });
    expect((await inject(app, '/explorer/explorer.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await inject(app, '/explorer/build.log')).status).toBe(404);
  });

  test('the API app serves it under the explorer CSP (data keeps the strict one); API_EXPLORER=false turns it off', async () => {
    // 200 after `npm run build`, 503 before: either way the page's CSP, never the data's.
    const page = await h.get('/');
    expect([200, 503]).toContain(page.status);
    expect(page.headers['content-security-policy']).toBe(EXPLORER_CSP);
    expect(EXPLORER_CSP).not.toMatch(/unsafe/);
    expect((await h.get('/explorer/explorer.css')).headers['content-security-policy']).toBe(EXPLORER_CSP);
    expect((await h.get('/pools')).headers['content-security-policy']).toBe(DATA_CSP);

    const off = await h.startApp({ API_EXPLORER: 'false' });
    expect(await inject(off, '/')).toMatchObject({ status: 404, body: { statusCode: 404 } });
    expect((await inject(off, '/explorer/explorer.js')).status).toBe(404);
  });
});
