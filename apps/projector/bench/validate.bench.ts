/**
 * Event validation throughput on one core: the projector validates every event it reads (replay
 * included), so this is on its hot path. Realistic events (sampleEventStream: every type, the
 * usual mix) as parsed values, the same as JSON text (parse + validate, what a consumer does), and
 * refused events (a bad pool address: the dead-letter path, which also builds the reason).
 *   npm run bench:validate [-- --json <file>]
 * The baseline is JSON.parse alone of the same text: what any consumer pays before validating.
 */
import { performance } from 'node:perf_hooks';
import { BenchReport } from '@hadron/platform/testing/bench-report';
import { hadronEventSchema, parseHadronEvent } from '@hadron/contracts';
import { fakeAddress, sampleEventStream } from '@hadron/contracts/testing/sample-events';

const events: unknown[] = sampleEventStream('mainnet-beta', [fakeAddress('a'), fakeAddress('b'), fakeAddress('c')], 3000).map((e) =>
  JSON.parse(JSON.stringify(e)),
);
const texts = events.map((e) => JSON.stringify(e));
const refused = events.map((e) => ({ ...(e as object), pool: 'not-a-key' }));

/** Calls `f` round-robin over `inputs` for `ms`; returns calls per second (and counts accepted ones, so nothing is optimised away). */
function rate(f: (v: unknown) => boolean, inputs: readonly unknown[], ms: number): { perSecond: number; accepted: number } {
  let n = 0;
  let accepted = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 1000; i++) if (f(inputs[n++ % inputs.length])) accepted++;
    now = performance.now();
  }
  return { perSecond: (n / (now - start)) * 1000, accepted };
}

const cases: Array<{ case: string; f: (v: unknown) => boolean; inputs: readonly unknown[]; baseline?: boolean }> = [
  { case: 'JSON.parse alone, valid JSON text', f: (v) => JSON.parse(v as string) !== null, inputs: texts, baseline: true },
  { case: 'hadronEventSchema.safeParse, valid values', f: (v) => hadronEventSchema.safeParse(v).success, inputs: events },
  { case: 'parseHadronEvent, valid JSON text', f: (v) => parseHadronEvent(v).ok, inputs: texts },
  { case: 'parseHadronEvent, refused values (reason built)', f: (v) => parseHadronEvent(v).ok, inputs: refused },
];

for (const c of cases) rate(c.f, c.inputs, 300); // warm up the JIT
const report = new BenchReport('validate');
report.set('events', events.length);
for (const c of cases) {
  const { perSecond } = rate(c.f, c.inputs, 2000);
  report.add({
    case: c.case,
    events_per_s: Math.round(perSecond),
    p50_ms: null,
    p99_ms: null,
    baseline: !!c.baseline,
    us_per_event: Number((1e6 / perSecond).toFixed(2)),
  });
}
report.write();
