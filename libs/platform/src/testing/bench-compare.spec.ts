import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { compareRuns, formatComparison, median, readBenchFile, sidesOf } from './bench-compare';
import type { BenchCase, BenchFile } from './bench-report';

const run = (bench: string, cases: BenchCase[]): BenchFile => ({ bench, at: '2026-11-27T00:00:00Z', cases });
const bare = (rps: number): BenchCase => ({ case: 'bare', rps, p50_ms: 1, p99_ms: 3, baseline: true });
const fees = (rps: number, p99: number): BenchCase => ({ case: 'fees', rps, p50_ms: 5, p99_ms: p99, baseline: false });

describe('bench:compare', () => {
  it('gives each side the median rate, the median share of its own run baseline, and the median p99', () => {
    // Before: the machine ran at 10,000 then 5,000 req/s bare; fees at 25 % then 30 % of it.
    const before = [run('api', [bare(10_000), fees(2_500, 20)]), run('api', [bare(5_000), fees(1_500, 40)])];
    // After: three runs, shares 40 %, 50 %, 45 %.
    const after = [run('api', [bare(8_000), fees(3_200, 18)]), run('api', [bare(6_000), fees(3_000, 22)]), run('api', [bare(10_000), fees(4_500, 30)])];
    const [b, f] = compareRuns(before, after);
    expect(b).toMatchObject({ case: 'bare', baseline: true, before: { runs: 2, rate: 7_500 }, after: { runs: 3, rate: 8_000 } });
    expect(b.before?.share).toBeUndefined();
    expect(f.before).toEqual({ runs: 2, rate: 2_000, share: 0.275, p99: 30 });
    expect(f.after).toEqual({ runs: 3, rate: 3_200, share: 0.45, p99: 22 });

    const table = formatComparison([b, f], { before: 2, after: 3 });
    expect(table).toContain('before (median of 2) | after (median of 3)');
    expect(table).toContain('| fees | 2,000 req/s | 3,200 req/s | +60.0 % | 28 % → 45 % | 30 → 22 |');
    expect(table).toContain('| bare | 7,500 req/s | 8,000 req/s | +6.7 % | (baseline) | 3 → 3 |');
  });

  it('shows a case that one side lacks, and a slowdown with a minus sign', () => {
    const events = (c: string, n: number, baseline = false): BenchCase => ({ case: c, events_per_s: n, p50_ms: null, p99_ms: null, baseline });
    const cases = compareRuns(
      [run('projector-replay', [events('raw COPY', 100_000, true), events('swaps alone', 50_000), events('old case', 1)])],
      [run('projector-replay', [events('raw COPY', 80_000, true), events('swaps alone', 44_000)])],
    );
    const table = formatComparison(cases, { before: 1, after: 1 });
    expect(table).toContain('| swaps alone | 50,000 ev/s | 44,000 ev/s | −12.0 % | 50 % → 55 % |  |');
    expect(table).toContain('| old case | 1 ev/s | — | — | 0 % → — |  |');
  });

  it('refuses runs of different benches, and a file that is not a bench report', () => {
    expect(() => compareRuns([run('api', [bare(1)])], [run('projector-replay', [bare(1)])])).toThrow(/different benches \(api, projector-replay\)/);
    const dir = mkdtempSync(join(tmpdir(), 'bench-compare-'));
    writeFileSync(join(dir, 'x.json'), '{"cases": 3}');
    expect(() => readBenchFile(join(dir, 'x.json'))).toThrow(/x\.json: not a bench report/);
    expect(() => readBenchFile(join(dir, 'missing.json'))).toThrow(/missing\.json: not a readable JSON file/);
  });

  it('reads its two sides from the command line: `a b`, or `a… vs b…`', () => {
    expect(sidesOf(['a', 'b'])).toEqual({ before: ['a'], after: ['b'] });
    expect(sidesOf(['a1', 'a2', 'vs', 'b1'])).toEqual({ before: ['a1', 'a2'], after: ['b1'] });
    for (const bad of [[], ['a'], ['a', 'b', 'c'], ['vs', 'b'], ['a', 'vs'], ['a', 'vs', 'b', 'vs', 'c']])
      expect(() => sidesOf(bad)).toThrow(/usage: npm run bench:compare/);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('runs as `npm run bench:compare` does: prints the table, and exits 2 on a bad command line', async () => {
    const root = resolve(__dirname, '../../../..');
    const dir = mkdtempSync(join(tmpdir(), 'bench-compare-'));
    writeFileSync(join(dir, 'a.json'), JSON.stringify(run('api', [bare(10_000), fees(2_000, 25)])));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(run('api', [bare(10_000), fees(3_000, 15)])));
    const node = (args: string[]) =>
      promisify(execFile)(process.execPath, ['-r', './scripts/register-ts.js', 'scripts/bench-compare.ts', ...args], { cwd: root }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const ok = await node([join(dir, 'a.json'), join(dir, 'b.json')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('| fees | 2,000 req/s | 3,000 req/s | +50.0 % | 20 % → 30 % | 25 → 15 |');
    const bad = await node([join(dir, 'a.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('usage: npm run bench:compare');
  }, 60_000);
});
