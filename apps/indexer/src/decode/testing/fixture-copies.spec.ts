import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * test/fixtures/<set> holds byte-identical copies of the team's shared fixtures
 * (../shared/fixtures/<set>, present on the team's machines, maybe absent from a fresh clone).
 * SHA256SUMS, committed next to the copies, pins their exact bytes, so the check runs everywhere:
 * the copies are always verified against it, and where the shared folder exists it must match the
 * same manifest — an update to the shared fixtures fails here until the copies and the manifest
 * are refreshed together (cp ../shared/fixtures/<set>/* test/fixtures/<set>/ && sha256sum … > SHA256SUMS).
 */

const root = resolve(__dirname, '../../../../..');
const MANIFEST = 'SHA256SUMS';
const SETS = [
  { set: 'hadron', files: ['README.md', 'accounts.json', 'instructions.json', 'pdas.json', 'swap-transactions.json'] },
  { set: 'solana', files: ['program-ids.json'] },
];

/** `sha256sum` output: "<64 hex>  <file>" per line. */
function readManifest(folder: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of readFileSync(join(folder, MANIFEST), 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const m = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line);
    if (!m) throw new Error(`${MANIFEST}: not a sha256sum line: ${JSON.stringify(line)}`);
    if (entries.has(m[2])) throw new Error(`${MANIFEST}: ${m[2]} listed twice`);
    entries.set(m[2], m[1]);
  }
  return entries;
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.each(SETS)('shared fixtures: $set', ({ set, files }) => {
  const copies = join(root, 'test/fixtures', set);
  const shared = resolve(root, '../shared/fixtures', set);
  const manifest = readManifest(copies);

  it('the manifest lists every file, and nothing else is in the folder', () => {
    expect([...manifest.keys()].sort()).toEqual([...files].sort());
    expect(readdirSync(copies).sort()).toEqual([...files, MANIFEST].sort());
  });

  it.each(files)(`test/fixtures/${set}/%s has the bytes the manifest pins`, (file) => {
    expect(sha256(join(copies, file))).toBe(manifest.get(file));
  });

  // Never skipped: without the shared folder (a fresh clone) the copies above are the check.
  it('the shared folder, where this machine has it, holds exactly the pinned files', () => {
    const folder = existsSync(shared) ? shared : copies;
    expect(
      readdirSync(folder)
        .filter((f) => f !== MANIFEST)
        .sort(),
    ).toEqual([...files].sort());
    for (const file of files) expect({ file, sha256: sha256(join(folder, file)) }).toEqual({ file, sha256: manifest.get(file) });
  });
});
