import { resolve } from 'node:path';

/** `--json <file>` from a bench's command line, if given (the bench then writes its cases there). */
export function jsonArg(argv: readonly string[] = process.argv): string | undefined {
  const i = argv.indexOf('--json');
  if (i < 0) return undefined;
  const file = argv[i + 1];
  if (!file || file.startsWith('--')) throw new Error('--json needs a file name');
  return resolve(file);
}
