import { readFileSync } from 'node:fs';
import { BenchReport, formatInt, formatShare, rateOf, type BenchCase, type BenchFile } from './bench-report';

/**
 * Compares runs of one bench (`--json` files, BenchReport's schema): the runs before a change
 * against the runs after it. A machine here can run at half its speed of an hour before, so each
 * case is given twice: its rate, and its share of the baseline measured in the same run (bare
 * Fastify, raw COPY…), which moves much less with the machine. With several runs a side, each
 * figure is the median of that side's runs.
 */

/** One side's figures for a case: medians over the runs that have it. */
export interface CaseSummary {
  runs: number;
  rate: number;
  /** Rate / the same run's baseline rate (BenchReport.ratio); absent for a baseline case or a run without one. */
  share?: number;
  p99?: number;
}

export interface ComparedCase {
  case: string;
  unit: 'req/s' | 'ev/s';
  baseline: boolean;
  before?: CaseSummary;
  after?: CaseSummary;
}

/** A bench file read from disk, with a clear error when it is not one. */
export function readBenchFile(path: string): BenchFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: not a readable JSON file (${(e as Error).message})`);
  }
  const f = json as Partial<BenchFile>;
  if (typeof f?.bench !== 'string' || !Array.isArray(f.cases) || f.cases.some((c) => typeof (c as Partial<BenchCase>)?.case !== 'string')) {
    throw new Error(`${path}: not a bench report (expected {"bench": name, "cases": [{"case", …}]}, as a bench writes with --json)`);
  }
  return f as BenchFile;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function summarise(runs: readonly BenchReport[], name: string): CaseSummary | undefined {
  const rates: number[] = [];
  const shares: number[] = [];
  const p99s: number[] = [];
  for (const report of runs) {
    const c = report.cases.find((x) => x.case === name);
    const rate = c && rateOf(c);
    if (c === undefined || rate === undefined) continue;
    rates.push(rate);
    const share = c.baseline ? undefined : report.ratio(c);
    if (share !== undefined) shares.push(share);
    if (typeof c.p99_ms === 'number') p99s.push(c.p99_ms);
  }
  if (rates.length === 0) return undefined;
  return {
    runs: rates.length,
    rate: median(rates),
    ...(shares.length ? { share: median(shares) } : {}),
    ...(p99s.length ? { p99: median(p99s) } : {}),
  };
}

/** Every case of either side, in the order the runs list them (the before side's first). */
export function compareRuns(before: readonly BenchFile[], after: readonly BenchFile[]): ComparedCase[] {
  const all = [...before, ...after];
  if (before.length === 0 || after.length === 0) throw new Error('each side needs at least one run');
  const benches = [...new Set(all.map((f) => f.bench))];
  if (benches.length > 1) throw new Error(`the runs are of different benches (${benches.join(', ')}): compare runs of one bench`);
  const seen = new Map<string, BenchCase>();
  for (const f of all) for (const c of f.cases) if (rateOf(c) !== undefined && !seen.has(c.case)) seen.set(c.case, c);
  const [beforeReports, afterReports] = [before.map(BenchReport.of), after.map(BenchReport.of)];
  return [...seen.values()].map((c) => ({
    case: c.case,
    unit: c.rps !== undefined ? 'req/s' : 'ev/s',
    baseline: c.baseline,
    before: summarise(beforeReports, c.case),
    after: summarise(afterReports, c.case),
  }));
}

const change = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || a === 0 ? '—' : `${b >= a ? '+' : '−'}${Math.abs((b / a - 1) * 100).toFixed(1)} %`;

/** The comparison as a Markdown table (rates, their change, shares of the baseline, p99). */
export function formatComparison(cases: readonly ComparedCase[], runs: { before: number; after: number }): string {
  const side = (n: number) => (n > 1 ? ` (median of ${n})` : '');
  const lines = [
    `| case | before${side(runs.before)} | after${side(runs.after)} | change | share of baseline, before → after | p99 ms, before → after |`,
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const c of cases) {
    const rate = (s?: CaseSummary) => (s ? `${formatInt(s.rate)} ${c.unit}` : '—');
    const share = c.baseline
      ? '(baseline)'
      : `${c.before?.share !== undefined ? formatShare(c.before.share) : '—'} → ${c.after?.share !== undefined ? formatShare(c.after.share) : '—'}`;
    const p99 = c.before?.p99 === undefined && c.after?.p99 === undefined ? '' : `${c.before?.p99 ?? '—'} → ${c.after?.p99 ?? '—'}`;
    lines.push(`| ${c.case} | ${rate(c.before)} | ${rate(c.after)} | ${change(c.before?.rate, c.after?.rate)} | ${share} | ${p99} |`);
  }
  return lines.join('\n');
}

export const BENCH_COMPARE_USAGE = `usage: npm run bench:compare -- <before.json> <after.json>
       npm run bench:compare -- <before.json>… vs <after.json>…
Files are what a bench writes with --json. With several runs a side, each figure is the median of that side's.`;

/** The command line's two sides: `a b`, or `a… vs b…`. */
export function sidesOf(args: readonly string[]): { before: string[]; after: string[] } {
  const vs = args.indexOf('vs');
  if (vs >= 0) {
    const before = args.slice(0, vs);
    const after = args.slice(vs + 1);
    if (before.length && after.length && !after.includes('vs')) return { before, after };
  } else if (args.length === 2) {
    return { before: [args[0]], after: [args[1]] };
  }
  throw new Error(BENCH_COMPARE_USAGE);
}
