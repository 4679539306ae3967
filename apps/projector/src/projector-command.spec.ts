import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { nodeFlagsOf, npmScriptNodeFlags } from '@hadron/platform/testing/node-command';

/**
 * The projector starts with the same Node flags (README "Node flag") however it is started: the
 * npm scripts, the image's default command and the compose `projector` service. The processes
 * without a projector start with none.
 */
const ROOT = resolve(__dirname, '../../..');

/** The JSON-array command on the line of `file` that runs `entry`. */
function commandRunning(file: string, entry: string): string[] {
  const line = readFileSync(resolve(ROOT, file), 'utf8')
    .split('\n')
    .find((l) => l.includes(`"${entry}"`) && /^\s*(CMD|command:)/.test(l));
  if (line === undefined) throw new Error(`${file} has no command running ${entry}`);
  return JSON.parse(line.slice(line.indexOf('['))) as string[];
}

describe('the Node flags the projector starts with', () => {
  const flags = npmScriptNodeFlags(ROOT, 'start:projector');

  it('start:projector gives the flags that the README section "Node flag" names', () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('**Node flag.**'));
    expect(flags).toEqual([/`(--[a-z-]+=\d+)`/.exec(section.slice(0, section.indexOf('\n\n')))?.[1]]);
  });

  it.each(['start', 'replay', 'demo', 'bench:projector'])('npm run %s runs a projector with the same flags', (script) => {
    expect(npmScriptNodeFlags(ROOT, script)).toEqual(flags);
  });

  it('the image (all in one) and the compose projector service run it with the same flags', () => {
    expect(nodeFlagsOf(commandRunning('Dockerfile', 'dist/apps/main/src/main.js'))).toEqual(flags);
    expect(nodeFlagsOf(commandRunning('docker-compose.yml', 'dist/apps/projector/src/main.js'))).toEqual(flags);
  });

  it('the API and the indexer alone start with none', () => {
    expect(npmScriptNodeFlags(ROOT, 'start:api')).toEqual([]);
    expect(npmScriptNodeFlags(ROOT, 'start:indexer')).toEqual([]);
    expect(nodeFlagsOf(commandRunning('docker-compose.yml', 'dist/apps/api/src/main.js'))).toEqual([]);
    expect(nodeFlagsOf(commandRunning('docker-compose.yml', 'dist/apps/indexer/src/main.js'))).toEqual([]);
  });
});
