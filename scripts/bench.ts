/**
 * `npm run bench`: the benches behind the performance targets (DESIGN §6, issue 14), one after the
 * other, each writing its `--json` report into one directory; then every target, met or missed, in
 * one table (libs/platform/src/testing/bench-targets.ts), also written as `summary.json`.
 *
 *   npm run bench [-- --only projector,api,live,indexer] [--out <dir>] [--json <file>] [--compare <dir>] [--strict]
 *
 * --only     a subset, in the order given (default: all four, projector first);
 * --out      where the reports go (default bench-results/<UTC date and time>);
 * --json     also the whole run as one report of the benches' schema (combineReports: every case as
 *            `<bench>: <case>` with its share of its bench's baseline, the targets, the exit codes),
 *            which bench:compare compares with another run's;
 * --compare  an earlier run's directory: each bench's cases side by side with it (bench:compare);
 * --strict   exit 3 when a target is missed or not measured (a bench measures; by default it does not fail).
 * A bench that fails is reported and the next one still runs; the exit code is then 1.
 * Environment: what each bench reads (its file's header); the projector bench's BENCH_EVENTS keeps
 * its own default (3,000,000 events: a log its raw COPY baseline cannot take in at a burst rate).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { constants } from 'node:os';
import { join, resolve } from 'node:path';
import { compareRuns, formatComparison, readBenchFile } from '@hadron/platform/testing/bench-compare';
import { combineReports, writeJsonFile, type BenchFile } from '@hadron/platform/testing/bench-report';
import { checkTargets, formatTargets } from '@hadron/platform/testing/bench-targets';

const ROOT = resolve(__dirname, '..');

/** Each bench: its npm script and arguments, and the name its report carries (`bench`). */
const BENCHES: Record<string, { script: string; args: string[]; report: string }> = {
  projector: { script: 'bench:projector', args: [], report: 'projector-replay' },
  api: { script: 'bench:api', args: [], report: 'api' },
  live: { script: 'bench:live', args: [], report: 'live' },
  indexer: { script: 'bench:indexer', args: ['1800'], report: 'indexer' },
};

export const BENCH_USAGE = `usage: npm run bench [-- --only ${Object.keys(BENCHES).join(',')}] [--out <dir>] [--json <file>] [--compare <dir>] [--strict]`;

interface Options {
  only: string[];
  out: string;
  json?: string;
  compare?: string;
  strict: boolean;
}

function options(argv: readonly string[]): Options {
  const o: Options = { only: Object.keys(BENCHES), out: join('bench-results', new Date().toISOString().slice(0, 19).replaceAll(':', '-')), strict: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${a} needs a value\n${BENCH_USAGE}`);
      return v;
    };
    if (a === '--only') {
      o.only = value().split(',');
      const unknown = o.only.filter((b) => !(b in BENCHES));
      if (unknown.length) throw new Error(`unknown bench ${unknown.join(', ')}: one of ${Object.keys(BENCHES).join(', ')}\n${BENCH_USAGE}`);
    } else if (a === '--out') o.out = value();
    else if (a === '--json') o.json = value();
    else if (a === '--compare') o.compare = value();
    else if (a === '--strict') o.strict = true;
    else throw new Error(`unknown argument ${a}\n${BENCH_USAGE}`);
  }
  return o;
}

let current: ChildProcess | undefined;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopping = true;
    current?.kill(signal);
  });
}

function runBench(name: string, file: string): Promise<number> {
  const b = BENCHES[name];
  process.stdout.write(`\n== npm run ${b.script} -- ${[...b.args, '--json', file].join(' ')}\n`);
  return new Promise((res) => {
    const child = spawn('npm', ['run', '-s', b.script, '--', ...b.args, '--json', file], { cwd: ROOT, stdio: 'inherit' });
    current = child;
    // A bench ended by a signal exits as a shell reports it: 128 + the signal's number.
    child.on('exit', (code, signal) => res(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    child.on('error', () => res(1));
  });
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = options(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const out = resolve(ROOT, o.out);
  mkdirSync(out, { recursive: true });
  const exits: Record<string, number> = {};
  for (const name of o.only) {
    if (stopping) break;
    const file = join(out, `${name}.json`);
    rmSync(file, { force: true }); // a report left by an earlier run into the same --out is not this run's
    exits[name] = await runBench(name, file);
    if (exits[name] !== 0) {
      const how = exits[name] > 128 ? `was stopped by a signal (exit ${exits[name]})` : `exited with ${exits[name]}`;
      process.stdout.write(`\n${name}: the bench ${how}; its targets are not measured\n`);
    }
  }
  // Each report that this run wrote, read once (for the targets and the comparison).
  const reports = new Map<string, BenchFile>();
  for (const n of o.only) if (existsSync(join(out, `${n}.json`))) reports.set(n, readBenchFile(join(out, `${n}.json`)));
  // The targets of the benches asked for: those of a bench that failed are "not measured".
  const checks = checkTargets([...reports.values()]).filter((c) => o.only.some((n) => BENCHES[n].report === c.bench));
  process.stdout.write(`\n== targets (${out})\n\n${formatTargets(checks)}\n`);
  writeJsonFile(join(out, 'summary.json'), { at: new Date().toISOString(), exits, targets: checks });
  if (o.json !== undefined) {
    const file = resolve(ROOT, o.json);
    writeJsonFile(file, combineReports('bench', [...reports.values()], { out, exits, targets: checks }));
    process.stdout.write(`wrote ${file}\n`);
  }
  if (o.compare !== undefined) {
    for (const [name, after] of reports) {
      const before = join(resolve(ROOT, o.compare), `${name}.json`);
      if (!existsSync(before)) continue;
      const table = formatComparison(compareRuns([readBenchFile(before)], [after]), { before: 1, after: 1 });
      process.stdout.write(`\n== ${name}: ${before} → ${join(out, `${name}.json`)}\n\n${table}\n`);
    }
  }
  if (Object.values(exits).some((c) => c !== 0) || stopping) return 1;
  return o.strict && checks.some((c) => c.met !== true) ? 3 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  },
);
