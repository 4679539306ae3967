import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../../..');
const copies = join(root, 'test/fixtures/hadron');
const shared = resolve(root, '../shared/fixtures/hadron');
const FILES = ['accounts.json', 'instructions.json', 'pdas.json', 'swap-transactions.json'];

describe('Hadron golden vectors', () => {
  it('are all in test/fixtures/hadron', () => {
    expect(readdirSync(copies).sort()).toEqual(expect.arrayContaining(FILES));
  });

  // The shared folder exists on the team's machines only; in a clean checkout the copies stand alone.
  (existsSync(shared) ? it : it.skip).each(FILES)('%s is a byte-identical copy of ../shared/fixtures/hadron', (file) => {
    expect(readFileSync(join(copies, file)).equals(readFileSync(join(shared, file)))).toBe(true);
  });
});
