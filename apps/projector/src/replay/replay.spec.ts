import { ALL_PROJECTIONS } from '../projections';
import { parseArgs } from './replay';
import { formatProgress } from './rebuild';

describe('npm run replay arguments', () => {
  it('takes a projection (or all) with defaults for the rest', () => {
    expect(parseArgs(['--projection', 'swaps'])).toEqual({ projections: ['swaps'], batchSize: 5000, keepRetired: 0, batchTimeoutMs: 300_000 });
    expect(parseArgs(['--projection', 'all', '--batch-size', '800', '--keep-retired', '2', '--batch-timeout-ms', '0'])).toEqual({
      projections: ALL_PROJECTIONS.map((p) => p.name),
      batchSize: 800,
      keepRetired: 2,
      batchTimeoutMs: 0,
    });
  });

  it.each([
    [[], /--projection is required: one of pools, swaps, midprice, or all/],
    [['--projection', 'nope'], /unknown projection "nope"/],
    [['--projection'], /--projection needs a value/],
    [['--projection', 'pools', '--batch-size', '0'], /--batch-size must be an integer 1..50000/],
    [['--projection', 'pools', '--batch-timeout-ms', '-1'], /--batch-timeout-ms must be an integer 0..86400000/],
    // A subset build skipped the other cluster for good on the Postgres log (one checkpoint for the whole log).
    [['--projection', 'pools', '--clusters', 'devnet'], /--clusters is not supported: a build always holds every cluster/],
    [['--projection', 'pools', '--clusters', 'mainnet-beta,devnet'], /--clusters is not supported/],
    [['--projection', 'pools', '--fast'], /unknown option --fast/],
  ])('refuses %j with a clear message', (argv, message) => {
    expect(() => parseArgs(argv as string[])).toThrow(message);
  });

  it('prints progress as done/total, rate and ETA', () => {
    expect(formatProgress('swaps', { group: 'swaps.v1.b1', done: 523_000, total: 1_000_000, perSecond: 61_234.4, etaSeconds: 7.8, elapsedSeconds: 8.5 })).toBe(
      'replay swaps [swaps.v1.b1] 523,000/1,000,000 events (52.3%) 61,234 ev/s ETA 8s elapsed 9s',
    );
  });

  it('says so while a caught-up build writes what its replay deferred', () => {
    expect(
      formatProgress('swaps', {
        group: 'swaps.v3.b1',
        done: 1_000_000,
        total: 1_000_000,
        perSecond: 61_234.4,
        etaSeconds: 0,
        elapsedSeconds: 20.2,
        finishingSeconds: 4.4,
      }),
    ).toBe(
      'replay swaps [swaps.v3.b1] 1,000,000/1,000,000 events (100.0%) 61,234 ev/s ETA 0s elapsed 20s; caught up, writing the tables the replay deferred for 4s',
    );
  });
});
