import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The Node flags of a `node …` command given as its words: the `--` words right after `node`, up to the first other word (e.g. `-r`). */
export function nodeFlagsOf(words: readonly string[]): string[] {
  const node = words.indexOf('node');
  if (node < 0) throw new Error(`not a node command: ${words.join(' ')}`);
  const flags: string[] = [];
  for (const word of words.slice(node + 1)) {
    if (!word.startsWith('--')) break;
    flags.push(word);
  }
  return flags;
}

/** The Node flags with which `npm run <script>` starts Node (package.json at `root`), so a bench starts a process as users do. */
export function npmScriptNodeFlags(root: string, script: string): string[] {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const command = scripts[script];
  if (command === undefined) throw new Error(`package.json has no script ${script}`);
  return nodeFlagsOf(command.split(/\s+/));
}
