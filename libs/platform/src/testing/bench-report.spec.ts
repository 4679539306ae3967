import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchReport } from './bench-report';

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
});
