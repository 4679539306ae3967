/**
 * `npm run bench:compare -- <before.json>… [vs] <after.json>…`: runs of one bench (its `--json`
 * files) before and after a change, case by case: rates, their change, each case's share of the
 * baseline measured in the same run, and p99 (libs/platform/src/testing/bench-compare.ts).
 */
import { BENCH_COMPARE_USAGE, compareRuns, formatComparison, readBenchFile, sidesOf } from '@hadron/platform/testing/bench-compare';

function main(): number {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${BENCH_COMPARE_USAGE}\n`);
    return 0;
  }
  let sides: { before: string[]; after: string[] };
  try {
    sides = sidesOf(args);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  try {
    const before = sides.before.map(readBenchFile);
    const after = sides.after.map(readBenchFile);
    const table = formatComparison(compareRuns(before, after), { before: before.length, after: after.length });
    process.stdout.write(`${before[0].bench}: ${sides.before.join(', ')} → ${sides.after.join(', ')}\n\n${table}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`bench:compare: ${(e as Error).message}\n`);
    return 1;
  }
}

process.exitCode = main();
