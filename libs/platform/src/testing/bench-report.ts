import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { jsonArg } from './bench-args';

/**
 * One measured case of a bench, as written to `--json <file>`: a rate (`rps` for requests,
 * `events_per_s` for events or transactions) and latency percentiles where the bench has them.
 * `baseline`: the in-run reference the other cases are compared with (bare Fastify, raw COPY…).
 */
export interface BenchCase {
  case: string;
  rps?: number;
  events_per_s?: number;
  p50_ms: number | null;
  p99_ms: number | null;
  baseline: boolean;
  /** Anything else the bench wants to keep (max latency, row counts, shares…). */
  [extra: string]: unknown;
}

export interface BenchFile {
  bench: string;
  at: string;
  cases: BenchCase[];
  [extra: string]: unknown;
}

/** A case's rate in its own unit: `rps` or `events_per_s`. */
export const rateOf = (c: BenchCase): number | undefined => c.rps ?? c.events_per_s;

/**
 * The cases of one bench run: each printed as it is added, with its ratio against the latest
 * baseline case measured in the same unit, and written as one JSON file (`--json <file>`) so
 * runs can be compared by a script.
 */
export class BenchReport {
  readonly cases: BenchCase[] = [];
  private readonly extra: Record<string, unknown> = {};

  constructor(
    readonly bench: string,
    private readonly out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  ) {}

  /** A report holding the cases of a run read back from its `--json` file, printing nothing (for its ratios). */
  static of(file: Pick<BenchFile, 'bench' | 'cases'>): BenchReport {
    const report = new BenchReport(file.bench, () => undefined);
    report.cases.push(...file.cases);
    return report;
  }

  /** Adds a case, prints its line (rate, percentiles, ratio to the baseline) and returns it. */
  add(c: BenchCase): BenchCase {
    this.cases.push(c);
    this.out(this.line(c));
    return c;
  }

  /** Run-level facts kept in the file beside the cases (dataset size, versions…). */
  set(key: string, value: unknown): void {
    this.extra[key] = value;
  }

  /** The latest baseline case before `c` in the same unit (`rps` or `events_per_s`). */
  baselineOf(c: BenchCase): BenchCase | undefined {
    const unit = c.rps !== undefined ? 'rps' : 'events_per_s';
    const i = this.cases.indexOf(c);
    // In a run's combined report (combineReports) each case names its bench: its baseline is that bench's.
    const isBase = (b: BenchCase) => b.baseline && b !== c && b[unit] !== undefined && b.bench === c.bench;
    // Preferably one measured before `c`; else any (a bench may measure its baseline last).
    return [...(i < 0 ? this.cases : this.cases.slice(0, i))].reverse().find(isBase) ?? this.cases.find(isBase);
  }

  /** `c`'s rate divided by its baseline's, if both are known. */
  ratio(c: BenchCase): number | undefined {
    const base = this.baselineOf(c);
    const [mine, theirs] = [rateOf(c), base && rateOf(base)];
    return mine !== undefined && theirs ? mine / theirs : undefined;
  }

  line(c: BenchCase): string {
    const rate = c.rps !== undefined ? `${formatInt(c.rps)} req/s` : c.events_per_s !== undefined ? `${formatInt(c.events_per_s)} ev/s` : '';
    const lat = c.p50_ms !== null || c.p99_ms !== null ? `  p50 ${ms(c.p50_ms)}  p99 ${ms(c.p99_ms)}` : '';
    const r = this.ratio(c);
    const vs = c.baseline ? '  (baseline)' : r !== undefined ? `  ${(r * 100).toFixed(0)}% of baseline` : '';
    return `  ${c.case.padEnd(48)} ${rate.padStart(16)}${lat}${vs}`;
  }

  toJSON(): BenchFile {
    return { bench: this.bench, at: new Date().toISOString(), ...this.extra, cases: this.cases };
  }

  /** Writes the file named by `--json <file>` (or `file`); returns its path, or undefined without one. */
  write(file: string | undefined = jsonArg()): string | undefined {
    if (!file) return undefined;
    writeJsonFile(file, this.toJSON());
    this.out(`wrote ${file}`);
    return file;
  }
}

/**
 * The reports of the benches of one `npm run bench`, as one file of the same schema (`--json`):
 * each case named `<bench>: <case>`, carrying `bench` (so its ratio is against its own bench's
 * baseline, not another's in the same unit) and, unless it is a baseline, `ratio`, its share of
 * that baseline as printed. Each bench's run-level facts (dataset, flatness…) are kept under
 * `benches.<bench>`; `extra` (the targets, exit codes…) at the top.
 */
export function combineReports(name: string, reports: readonly BenchFile[], extra: Record<string, unknown> = {}): BenchFile {
  const cases: BenchCase[] = [];
  const benches: Record<string, Record<string, unknown>> = {};
  for (const file of reports) {
    const { cases: own, bench, ...facts } = file;
    benches[bench] = facts;
    const report = BenchReport.of(file);
    for (const c of own) {
      const ratio = c.baseline ? undefined : report.ratio(c);
      cases.push({ ...c, case: `${bench}: ${c.case}`, bench, ...(ratio === undefined ? {} : { ratio: Math.round(ratio * 10_000) / 10_000 }) });
    }
  }
  return { bench: name, at: new Date().toISOString(), ...extra, benches, cases };
}

/** `value` as indented JSON in `file` (its directory made if need be): a bench's report, or a run's. */
export function writeJsonFile(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A rate as printed: rounded, with thousands separators. */
export const formatInt = (n: number): string => Math.round(n).toLocaleString('en-US');
/** A share (0.52) as printed in the comparison and target tables ("52 %"). */
export const formatShare = (n: number): string => `${(n * 100).toFixed(0)} %`;
const ms = (n: number | null): string => (n === null ? '—' : `${Number(n.toFixed(n < 10 ? 2 : 1))} ms`);
