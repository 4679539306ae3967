import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { READ_CONTRACT } from './read-contract';

/** Every `read` view of scripts/schema.snapshot.txt (a fresh database, migrated) with its columns and types, as the snapshot prints them. */
function snapshotReadViews(): Record<string, [string, string][]> {
  const views: Record<string, [string, string][]> = {};
  let current: [string, string][] | undefined;
  for (const line of readFileSync(resolve(__dirname, '../../../../scripts/schema.snapshot.txt'), 'utf8').split('\n')) {
    const view = /^view read\.(\w+)$/.exec(line);
    if (view) views[view[1]] = current = [];
    else if (current && /^ {2}\S/.test(line)) {
      const space = line.indexOf(' ', 2);
      current.push([line.slice(2, space), line.slice(space + 1)]);
    } else current = undefined;
  }
  return views;
}

describe('READ_CONTRACT (what readiness requires of the read schema)', () => {
  it('is the read views and columns that this release’s migrations publish (after a read-view change: npm run migrations:snapshot, then update read-contract.ts)', () => {
    const views = snapshotReadViews();
    expect(Object.keys(views).length).toBeGreaterThan(10);
    expect(views.midprice_five_minute).toContainEqual(['tail', 'text']);
    expect(READ_CONTRACT).toEqual(views);
  });
});
