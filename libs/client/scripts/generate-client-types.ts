import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..');
export const OPENAPI_DOCUMENT = resolve(root, 'apps', 'api', 'openapi.json');
export const CLIENT_TYPES_FILE = resolve(root, 'libs', 'client', 'src', 'openapi.ts');

const HEADER = [
  '// GENERATED from apps/api/openapi.json by openapi-typescript (default options: integers are `number`,',
  '// what JSON.parse gives). Do not edit: regenerate with `npm run client:generate`; the unit test',
  '// libs/client/src/client-types.spec.ts fails while this file differs from what the document generates.',
  '',
].join('\n');

/**
 * The text of libs/client/src/openapi.ts for an OpenAPI document (default: the committed one).
 * openapi-typescript and its dependencies are ESM-only, which Jest (CommonJS) cannot load: its
 * CLI runs in a child process, fed the document on stdin, so the npm script and the drift test
 * run the very same generator.
 */
export function generateClientTypes(documentText = readFileSync(OPENAPI_DOCUMENT, 'utf8')): string {
  const cli = resolve(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  const run = spawnSync(process.execPath, [cli], { input: documentText, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`openapi-typescript exited with ${run.status}: ${run.stderr}`);
  return HEADER + run.stdout;
}
