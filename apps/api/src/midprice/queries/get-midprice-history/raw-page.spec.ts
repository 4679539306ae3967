import fc from 'fast-check';
import { cutRawPage as cutBy } from './raw-page';

const pts = (...ts: number[]) => ts.map((t, i) => ({ ts: t, n: i }));
const cutRawPage = <T extends { ts: number }>(rows: readonly T[], limit: number) => cutBy(rows, limit, (p) => p.ts);

describe('cutRawPage', () => {
  it('a short page is complete', () => {
    expect(cutRawPage(pts(9, 8), 5)).toEqual({ kind: 'page', page: pts(9, 8), more: false });
  });

  it('a cut between seconds keeps the whole page', () => {
    expect(cutRawPage(pts(9, 8, 7), 2)).toEqual({ kind: 'page', page: pts(9, 8), more: true });
  });

  it('a cut inside a second leaves that second for the next page', () => {
    const r = cutRawPage(pts(9, 8, 8, 8), 3);
    expect(r).toEqual({ kind: 'page', page: pts(9), more: true });
  });

  it('one second holding more than limit points: the whole second', () => {
    expect(cutRawPage(pts(8, 8, 8), 2)).toEqual({ kind: 'whole-second', second: 8 });
  });

  /** Walks pages through a fake table exactly as the handler does; every point once, in order. */
  it('walking next_cursor never skips or repeats a point (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 120 }), fc.integer({ min: 1, max: 7 }), (times, limit) => {
        const table = times.map((ts, id) => ({ ts, id })).sort((a, b) => b.ts - a.ts || b.id - a.id);
        const seen: number[] = [];
        let cursor = Number.MAX_SAFE_INTEGER;
        for (let guard = 0; guard < 1000; guard++) {
          const before = table.filter((p) => p.ts < cursor);
          const cut = cutRawPage(before.slice(0, limit + 1), limit);
          let page: typeof table;
          let more: boolean;
          if (cut.kind === 'page') {
            page = cut.page;
            more = cut.more;
          } else {
            page = before.filter((p) => p.ts === cut.second);
            more = before.some((p) => p.ts < cut.second);
          }
          seen.push(...page.map((p) => p.id));
          if (!more) break;
          expect(page.length).toBeGreaterThan(0);
          cursor = page[page.length - 1].ts;
        }
        expect(seen).toEqual(table.map((p) => p.id));
      }),
    );
  });
});
