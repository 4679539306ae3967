// Bundles the explorer page (apps/api/explorer) into dist/apps/api/explorer: explorer.js, explorer.css
// (uPlot's and ours) and index.html, which the API serves at / (apps/api/src/explorer/serve-explorer.ts).
// Part of `npm run build`; esbuild resolves @hadron/client through this folder's tsconfig.json.
const { build } = require('esbuild');
const { copyFileSync, mkdirSync } = require('node:fs');
const { join, resolve } = require('node:path');

const here = __dirname;
const out = resolve(here, '../../../dist/apps/api/explorer');

build({
  entryPoints: { explorer: join(here, 'src/main.ts') },
  outdir: out,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  sourcemap: false,
  tsconfig: join(here, 'tsconfig.json'),
  legalComments: 'eof',
  logLevel: 'warning',
})
  .then(() => {
    mkdirSync(out, { recursive: true });
    copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
  })
  .catch(() => process.exit(1));
