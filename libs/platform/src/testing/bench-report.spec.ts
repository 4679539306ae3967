import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns } from './bench-compare';
import { BenchReport, combineReports, type BenchFile } from './bench-report';

describe('BenchReport', () => {
  it('prints each case with its ratio to the baseline in the same unit and writes the --json schema', () => {
    const lines: string[] = [];
    const r = new BenchReport('demo', (l) => lines.push(l));
    r.add({ case: 'bare', rps: 10_000, p50_ms: 1, p99_ms: 4, baseline: true });
    r.add({ case: 'copy', events_per_s: 100_000, p50_ms: null, p99_ms: null, baseline: true });
    r.add({ case: 'api', rps: 2_500, p50_ms: 10, p99_ms: 25.5, baseline: false });
    r.add({ case: 'replay', events_per_s: 60_000, p50_ms: null, p99_ms: null, baseline: false });
    expect(lines[2]).toContain('25% of baseline');
    expect(lines[3]).toContain('60% of baseline');
    r.set('rows', 1000);
    const file = join(mkdtempSync(join(tmpdir(), 'bench-')), 'out', 'r.json');
    expect(r.write(file)).toBe(file);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    expect(json.bench).toBe('demo');
    expect(json.rows).toBe(1000);
    expect(json.cases.map((c: { case: string }) => c.case)).toEqual(['bare', 'copy', 'api', 'replay']);
    expect(json.cases[2]).toEqual({ case: 'api', rps: 2500, p50_ms: 10, p99_ms: 25.5, baseline: false });
  });

  it('writes nothing without --json', () => {
    expect(new BenchReport('x', () => undefined).write(undefined)).toBeUndefined();
  });

  describe('combineReports (npm run bench --json)', () => {
    // Two benches measuring in the same unit; the second measures its baseline after its case.
    const projector = (copy: number, swaps: number): BenchFile => ({
      bench: 'projector-replay',
      at: 'then',
      events: 300_000,
      cases: [
        { case: 'raw COPY', events_per_s: copy, p50_ms: null, p99_ms: null, baseline: true },
        { case: 'swaps alone', events_per_s: swaps, p50_ms: null, p99_ms: null, baseline: false },
      ],
    });
    const indexer = (e2e: number, fetch: number): BenchFile => ({
      bench: 'indexer',
      at: 'then',
      cases: [
        { case: 'end to end', events_per_s: e2e, p50_ms: null, p99_ms: null, baseline: false },
        { case: 'RPC fetch + parse only', events_per_s: fetch, p50_ms: null, p99_ms: null, baseline: true },
      ],
    });

    it('names each case by its bench and gives its share of its own bench baseline, never another bench one', () => {
      const all = combineReports('bench', [projector(200_000, 100_000), indexer(8_000, 40_000)], { exits: { projector: 0, indexer: 0 } });
      expect(all.bench).toBe('bench');
      expect(all.exits).toEqual({ projector: 0, indexer: 0 });
      expect(all.benches).toEqual({ 'projector-replay': { at: 'then', events: 300_000 }, indexer: { at: 'then' } });
      expect(all.cases.map((c) => [c.case, c.bench, c.ratio])).toEqual([
        ['projector-replay: raw COPY', 'projector-replay', undefined],
        ['projector-replay: swaps alone', 'projector-replay', 0.5],
        // Without its bench, the latest baseline before it in ev/s would be the projector's COPY (4 %).
        ['indexer: end to end', 'indexer', 0.2],
        ['indexer: RPC fetch + parse only', 'indexer', undefined],
      ]);
      const read = BenchReport.of(all);
      expect(read.ratio(read.cases[2])).toBeCloseTo(0.2);
    });

    it('compares with another run of the whole bench, each share against its own bench baseline', () => {
      const before = combineReports('bench', [projector(200_000, 100_000), indexer(8_000, 40_000)]);
      const after = combineReports('bench', [projector(100_000, 60_000), indexer(9_000, 30_000)]);
      const byCase = new Map(compareRuns([before], [after]).map((c) => [c.case, c]));
      expect(byCase.get('projector-replay: swaps alone')).toMatchObject({ before: { rate: 100_000, share: 0.5 }, after: { rate: 60_000, share: 0.6 } });
      expect(byCase.get('indexer: end to end')).toMatchObject({ before: { rate: 8_000, share: 0.2 }, after: { rate: 9_000, share: 0.3 } });
    });
  });
});
