import fc from 'fast-check';
import {
  fakeAddress,
  fakeSignature,
  sampleFeeSplitChanged,
  sampleMidpriceUpdated,
  samplePoolDiscovered,
  sampleSwap,
  sampleTokenMetadataChanged,
  sampleVaultBalancesChanged,
} from '../testing/sample-events';
import { fastValidateHadronEvent } from './fast-validate';
import { hadronEventSchema, parseHadronEvent, type HadronEvent } from './hadron-event';

/**
 * The fast checks must be the zod contract, exactly: same verdict on every value, and when both
 * accept, the same output (unknown keys stripped, keys in schema order).
 */

const pool = fakeAddress('differential');
const splitSwap = sampleSwap('devnet', pool, 7);
const samples: HadronEvent[] = [
  samplePoolDiscovered('mainnet-beta', pool, 1),
  { ...samplePoolDiscovered('devnet', pool, 2), type: 'PoolConfigChanged' },
  sampleMidpriceUpdated('devnet', pool, 3),
  {
    ...sampleMidpriceUpdated('mainnet-beta', pool, 4),
    data: { ...sampleMidpriceUpdated('devnet', pool, 4).data, instruction: 'UpdateMidprice', spreadFactorQ32: null },
  },
  {
    ...sampleMidpriceUpdated('devnet', pool, 10),
    data: {
      ...sampleMidpriceUpdated('devnet', pool, 10).data,
      instruction: 'UpdateBaseSpread',
      midpriceQ32: null,
      midpriceAfterQ32: null,
      spreadFactorAfterQ32: '4294537799',
    },
  },
  sampleSwap('mainnet-beta', pool, 5),
  {
    ...splitSwap,
    data: {
      ...splitSwap.data,
      feeSplit: [
        { recipient: fakeAddress('r1'), ppm: 1_000_000 },
        { recipient: fakeAddress('r2'), ppm: 0 },
      ],
    },
  },
  sampleVaultBalancesChanged('devnet', pool, 6),
  sampleFeeSplitChanged('mainnet-beta', pool, 8),
  { ...sampleFeeSplitChanged('devnet', pool, 9), data: { ...sampleFeeSplitChanged('devnet', pool, 9).data, recipients: [] } },
  sampleTokenMetadataChanged('mainnet-beta', pool, 11),
  { ...sampleTokenMetadataChanged('devnet', pool, 12), data: { ...sampleTokenMetadataChanged('devnet', pool, 12).data, symbol: '', name: '' } },
];

/** Values that sit on the contract's edges: lengths, bounds, u64 limits, enum members, wrong types. */
const edgeValue = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    null,
    true,
    false,
    0,
    -0,
    1,
    2,
    3,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 53,
    30,
    31,
    255,
    256,
    1_000_000,
    1_000_001,
    '',
    '0',
    '00',
    '01',
    '-1',
    ' 1',
    '1 ',
    '1e3',
    '18446744073709551615',
    '18446744073709551616',
    '99999999999999999999',
    '100000000000000000000',
    '09',
    'mainnet-beta',
    'devnet',
    'testnet',
    'buy',
    'sell',
    'Paused',
    'Closed',
    'Unknown',
    'UpdateMidprice',
    'UpdateBaseSpread',
    'SwapExecuted',
    'FeeSplitChanged',
    'TokenMetadataChanged',
    fakeAddress('edge'),
    fakeAddress('edge').slice(0, 31),
    '1'.repeat(32),
    '1'.repeat(44),
    '1'.repeat(45),
    'O'.repeat(40),
    '0'.repeat(40),
    'l'.repeat(40),
    fakeSignature('edge'),
    '2'.repeat(63),
    '2'.repeat(64),
    '2'.repeat(90),
    '2'.repeat(91),
    'x'.repeat(32),
    'x'.repeat(33),
    'x'.repeat(64),
    'x'.repeat(65),
    'x'.repeat(128),
    'x'.repeat(129),
    'x'.repeat(200),
    'x'.repeat(201),
    'x'.repeat(2049),
    [],
    {},
    [{ recipient: fakeAddress('r'), ppm: 5 }],
    [{ recipient: fakeAddress('r'), ppm: 5, extra: 1 }],
    [null],
    { mint: fakeAddress('m') },
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 50 }),
  fc.integer(),
  fc.double(),
);

type Mutation = { path: number; op: 'set' | 'delete' | 'extra'; value: unknown; extraKey: string };

/** Every (container, key) in a value, depth first: the places a mutation can hit. */
function slots(v: unknown, out: Array<[Record<string, unknown> | unknown[], string | number]> = []) {
  const children: Array<[string | number, unknown]> = Array.isArray(v)
    ? Array.from(v, (x, i): [number, unknown] => [i, x])
    : typeof v === 'object' && v !== null
      ? Object.entries(v)
      : [];
  for (const [k, x] of children) {
    out.push([v as Record<string, unknown> | unknown[], k]);
    slots(x, out);
  }
  return out;
}

function mutate(event: HadronEvent, mutations: readonly Mutation[]): unknown {
  const copy: unknown = structuredClone(event);
  for (const m of mutations) {
    const all = slots(copy);
    const [container, key] = all[m.path % all.length];
    const target = container as Record<string | number, unknown>;
    // A fresh copy each time: the edge values are shared constants, and must never become cyclic.
    if (m.op === 'set') target[key] = structuredClone(m.value);
    else if (m.op === 'delete') delete target[key];
    else if (!Array.isArray(container)) target[m.extraKey] = structuredClone(m.value);
  }
  return copy;
}

function expectSameVerdict(value: unknown): void {
  const reference = hadronEventSchema.safeParse(value);
  const fast = fastValidateHadronEvent(value);
  expect({ accepted: fast !== undefined, value }).toEqual({ accepted: reference.success, value });
  if (reference.success) {
    expect(fast).toStrictEqual(reference.data);
    expect(JSON.stringify(fast)).toBe(JSON.stringify(reference.data));
  }
}

describe('fast contract checks agree with the zod contract', () => {
  it('accept every sample of every event type, returning an equal value', () => {
    for (const e of samples) {
      expectSameVerdict(e);
      expect(fastValidateHadronEvent(e)).toStrictEqual(e);
    }
    expect(new Set(samples.map((e) => e.type))).toEqual(new Set(hadronEventSchema.options.map((o) => o.shape.type.value)));
  });

  it('give the same verdict and output on mutated events (wrong types, bounds, missing and extra keys)', () => {
    const mutation = fc.record<Mutation>({
      path: fc.nat(),
      op: fc.constantFrom('set', 'set', 'delete', 'extra'),
      value: edgeValue,
      extraKey: fc.constantFrom('extra', 'type', '__proto__', 'constructor', 'toString', 'id'),
    });
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.array(mutation, { minLength: 1, maxLength: 3 }), (event, ms) => expectSameVerdict(mutate(event, ms))),
      { numRuns: Number(process.env.FC_RUNS ?? 20_000) },
    );
  });

  it('give the same verdict on arbitrary values and on one event type wearing another type', () => {
    fc.assert(
      fc.property(fc.oneof(edgeValue, fc.anything()), (v) => expectSameVerdict(v)),
      { numRuns: Number(process.env.FC_RUNS_ANY ?? 5_000) },
    );
    for (const e of samples) for (const other of samples) expectSameVerdict({ ...e, type: other.type });
  });

  it('strips unknown keys at every level, as the contract does', () => {
    const swap = sampleSwap('devnet', pool, 11);
    const noisy = { ...swap, extra: 1, data: { ...swap.data, feeSplit: [{ recipient: fakeAddress('r'), ppm: 1, note: 'x' }], debug: true } };
    const r = parseHadronEvent(JSON.stringify(noisy));
    expect(r).toEqual({ ok: true, event: { ...swap, data: { ...swap.data, feeSplit: [{ recipient: fakeAddress('r'), ppm: 1 }] } } });
    expect(r.ok && Object.keys(r.event)).not.toContain('extra');
  });
});
