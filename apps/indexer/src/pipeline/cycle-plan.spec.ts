import {
  cycleRetryDelay,
  endOf,
  gapRetryDelay,
  missingToHold,
  nextSnapshotDue,
  newestAtOrBelow,
  programCursorsAfter,
  rangeBounds,
  type PagedListing,
} from './cycle-plan';

const c = (slot: number, signature = `s${slot}`) => ({ slot, signature });

describe('the cycle planner', () => {
  it.each([
    ['the first run from a slot', true, { slot: 10 }, { rangeStartSlot: 10, rangeStartTime: null }],
    ['the first run from a time', true, { time: 99 }, { rangeStartSlot: null, rangeStartTime: 99 }],
    ['a later run (the cursor bounds it)', false, { slot: 10 }, { rangeStartSlot: null, rangeStartTime: null }],
  ])('given %s, then the range bounds are as listed', (_given, first, start, then) => {
    expect(rangeBounds(first, start)).toEqual(then);
  });

  it.each([
    ['no held pool', 0, 60_000, 1_060_000],
    ['a held pool (its mints read again soon)', 1, 60_000, 1_005_000],
    ['a held pool and a shorter refresh', 2, 1_000, 1_001_000],
  ])('given %s, then the next snapshot is due at the listed time', (_given, held, refreshMs, then) => {
    expect(nextSnapshotDue(1_000_000, held, refreshMs)).toBe(then);
  });

  it.each([
    ['one failure', 1, 500],
    ['three failures', 3, 2000],
    ['many failures (capped)', 40, 30_000],
  ])('given %s, when the cycle retries, then it waits the listed ms', (_given, failures, then) => {
    expect(cycleRetryDelay(failures)).toBe(then);
  });

  it.each([
    ['a first retry', 0, 1000],
    ['a fourth retry', 3, 8000],
    ['many retries (capped at 10 min)', 30, 600_000],
  ])('given %s of a gap, then it is deferred by the listed ms', (_given, attempts, then) => {
    expect(gapRetryDelay(1000, attempts)).toBe(then);
  });

  it.each([
    ['a list of nothing', [], 5, null],
    ['a slot above every entry', [c(9), c(7), c(3)], 10, c(9)],
    ['a slot between entries', [c(9), c(7), c(3)], 8, c(7)],
    ['a slot equal to an entry', [c(9), c(7), c(3)], 7, c(7)],
    ['a slot below every entry', [c(9), c(7), c(3)], 2, null],
  ])('given %s, then the newest entry at or below is as listed', (_given, list, slot, then) => {
    expect(newestAtOrBelow(list, slot)).toEqual(then);
  });

  it('given a commit through a slot, then each program cursor moves to its newest listing at or below it, others stay', () => {
    const after = programCursorsAfter(
      new Map([
        ['A', c(1)],
        ['B', c(2)],
      ]),
      new Map([
        ['A', [c(9), c(5)]],
        ['B', [c(9)]],
      ]),
      6,
    );
    expect([...after]).toEqual([
      ['A', c(5)],
      ['B', c(2)],
    ]);
  });

  const holds: [string, boolean, [string, number][], string[], [string, number][]][] = [
    // given, served now?, first failures known, then held for, then first failures
    ['a served transaction', true, [['t', 10]], [], []],
    ['a first failure (within the grace period)', false, [], ['t'], [['t', 1000]]],
    ['a failure still in the grace period', false, [['t', 500]], ['t'], [['t', 500]]],
    ['a failure past the grace period', false, [['t', 0]], [], []],
  ];
  it.each(holds)('given %s, then the cursor holds for the listed signatures', (_given, ok, known, young, first) => {
    const out = missingToHold(new Map([['t', { ok }]]), new Map(known), 1000, 1000);
    expect(out.young).toEqual(young);
    expect([...out.firstFailure]).toEqual(first);
  });

  it('given a paged range, when it ends, then each program cursor moves to its newest listed signature', () => {
    const paged: PagedListing = {
      kind: 'paged',
      target: 10,
      afterSlot: null,
      rangeStartSlot: null,
      rangeStartTime: null,
      until: new Map(),
      boundaries: new Map(),
      newest: new Map([['A', c(9)]]),
      late: [],
      count: 3,
      first: null,
    };
    expect(endOf(paged)).toEqual({ kind: 'full', refs: [], newest: paged.newest, listed: new Map([['A', [c(9)]]]), late: [] });
  });
});
