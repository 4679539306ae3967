import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every .ts file under `dir` (node_modules and build output skipped): for tests that scan the source. */
export function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** A base58 string literal of key length in TypeScript source. */
export const BASE58_KEY_LITERAL = /['"`]([1-9A-HJ-NP-Za-km-z]{32,44})['"`]/g;
