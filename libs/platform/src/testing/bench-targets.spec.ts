import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { BenchCase, BenchFile } from './bench-report';
import { checkTargets, formatTargets } from './bench-targets';

const rps = (name: string, n: number, p99: number, baseline = false): BenchCase => ({ case: name, rps: n, p50_ms: 1, p99_ms: p99, baseline });
const evs = (name: string, n: number, baseline = false): BenchCase => ({ case: name, events_per_s: n, p50_ms: null, p99_ms: null, baseline });
const file = (bench: string, cases: BenchCase[], extra: Record<string, unknown> = {}): BenchFile => ({ bench, at: '2026-11-27T00:00:00Z', ...extra, cases });

describe('performance targets over bench reports', () => {
  const api = file(
    'api',
    [
      rps('bare Fastify: pool list object', 10_000, 5, true),
      rps('GET /pools (default page)', 4_900, 12),
      rps('fees (1h/24h/7d/30d/all): random pool, distinct', 3_000, 30),
      rps('midprice sampled (5m–4h): BIG pool, distinct', 3_500, 31),
      rps('midprice raw (50/200): SMALL pool, distinct', 2_999, 20),
      rps('fees (24h): BIG pool, repeated', 500, 90),
    ],
    { fees_all_vs_1h_p50: 1.5, midprice_sampled_big_vs_small_p50: 1.5, fees_big_vs_small_p50: 1.51 },
  );
  const projector = file('projector-replay', [
    evs('raw COPY of the log rows', 100_000, true),
    evs('swaps alone', 60_000),
    evs('all projections at once, one fan-out reader (log ev/s)', 29_999),
    evs('all projections at once, a consumer per build (log ev/s)', 10),
  ]);
  const live = file('live', [
    { ...rps('50/s simulator RPC (baseline)', 50, 20, true) },
    { case: '50/s default', events_per_s: 50, p50_ms: 200, p99_ms: 1000, baseline: false, lost: 0 },
    { case: '50/s websocket', events_per_s: 50, p50_ms: 50, p99_ms: 90, baseline: false, lost: 2 },
    { case: '500/s default', events_per_s: 500, p50_ms: 900, p99_ms: 5000, baseline: false, lost: 0 },
  ]);

  it('checks each target on the cases it names, at its bounds, against the same run baseline', () => {
    const byCase = Object.fromEntries(checkTargets([api, projector, live]).map((c) => [c.subject, c]));
    expect(byCase['GET /pools (default page)']).toMatchObject({ measured: '49 %', met: false });
    expect(byCase['fees (1h/24h/7d/30d/all): random pool, distinct']).toMatchObject({ measured: '3,000 req/s, p99 30 ms', met: true });
    expect(byCase['midprice sampled (5m–4h): BIG pool, distinct'].met).toBe(false); // p99 31 ms
    expect(byCase['midprice raw (50/200): SMALL pool, distinct'].met).toBe(false); // 2,999 req/s
    expect(byCase['fees (24h): BIG pool, repeated']).toBeUndefined(); // repeated queries have no target
    expect(byCase.fees_all_vs_1h_p50).toMatchObject({ measured: '1.50×', met: true });
    // Flat in rows: 10⁶ against 10⁴ measured; 10⁷ only with BENCH_API_HUGE=1, so not measured here.
    expect(byCase.midprice_sampled_big_vs_small_p50).toMatchObject({ measured: '1.50×', met: true });
    expect(byCase.fees_big_vs_small_p50).toMatchObject({ measured: '1.51×', met: false });
    expect(byCase.midprice_sampled_huge_vs_small_p50).toMatchObject({ measured: '—', met: 'not measured' });
    expect(byCase.fees_huge_vs_small_p50.target).toContain('BENCH_API_HUGE=1');
    expect(byCase['swaps alone']).toMatchObject({ measured: '60,000 ev/s, 60 %', met: true });
    expect(byCase['all projections at once, one fan-out reader (log ev/s)']).toMatchObject({ measured: '29,999 log ev/s', met: false });
    expect(byCase['all projections at once, a consumer per build (log ev/s)']).toBeUndefined();
    expect(byCase['50/s default']).toMatchObject({ measured: 'p99 1000 ms', met: true });
    expect(byCase['50/s websocket']).toMatchObject({ measured: 'p99 90 ms, 2 lost', met: false });
    expect(byCase['500/s default']).toBeUndefined();
  });

  it("says the log size the projector's share was measured on, when its report gives it", () => {
    const sized = file('projector-replay', [evs('raw COPY of the log rows', 200_000, true), evs('swaps alone', 90_000)], { events: 300_000 });
    expect(checkTargets([sized]).find((c) => c.subject === 'swaps alone')).toMatchObject({ measured: '90,000 ev/s, 45 % (300,000-event log)', met: false });
  });

  it('says "not measured" for a bench without a report or a renamed case, never met', () => {
    const checks = checkTargets([file('projector-replay', [evs('raw COPY of the log rows', 100_000, true), evs('swaps, renamed', 90_000)])]);
    expect(checks.find((c) => c.bench === 'indexer')).toMatchObject({ measured: '—', met: 'not measured' });
    expect(checks.find((c) => c.subject === '^swaps alone$')).toMatchObject({ met: 'not measured' });
    expect(checks.find((c) => c.subject === 'fees_all_vs_1h_p50')).toMatchObject({ met: 'not measured' });
    const text = formatTargets(checks);
    expect(text).toMatch(/^0 met, 0 missed, \d+ not measured/m);
  });

  it('prints a table with a count of met, missed and not measured', () => {
    const text = formatTargets(checkTargets([api]).filter((c) => c.bench === 'api'));
    expect(text).toContain('| api | GET /pools (default page) | 49 % | ≥ 50 % of bare Fastify (same run) | **missed** |');
    expect(text).toContain('3 met, 4 missed, 2 not measured');
  });

  it('`npm run bench` refuses an unknown bench or argument with its usage (exit 2), before running anything', async () => {
    const root = resolve(__dirname, '../../../..');
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ['-r', './scripts/register-ts.js', 'scripts/bench.ts', ...args], { cwd: root }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
    for (const [args, message] of [
      [['--only', 'api,nope'], 'unknown bench nope'],
      [['--out'], '--out needs a value'],
      [['--fast'], 'unknown argument --fast'],
    ] as const) {
      const r = await run([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('usage: npm run bench');
    }
  }, 60_000);
});
