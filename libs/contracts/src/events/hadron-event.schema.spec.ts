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
import { hadronEventSchema, parseHadronEvent, type HadronEvent } from './hadron-event';

/**
 * The v1 contracts (one zod 4 declaration each: the validator and the type) on their edges. Until
 * issue 15 a hand-written copy (fast-validate.ts) ran on the hot path and this file checked it
 * against zod differentially; zod 4 replaced it after giving zod 3's verdict and output on 100,000
 * mutated events and 30,000 arbitrary values. What each accepts and refuses is pinned below.
 * parseHadronEvent has a hand-written fast path again (hadron-event.fast-path.ts: zod 4 still cost
 * about twice JSON.parse per event), checked against zod alone in hadron-event.fast-path.spec.ts;
 * here parseHadronEvent is compared with zod too.
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

function validate(value: unknown): HadronEvent | undefined {
  const r = hadronEventSchema.safeParse(value);
  return r.success ? r.data : undefined;
}

/** Accepted values come back stripped to the contract, which is a fixed point; refusals carry a reason and never throw. */
function expectWellBehaved(value: unknown): void {
  const out = validate(value);
  const parsed = parseHadronEvent(value);
  expect(parsed.ok).toBe(out !== undefined);
  if (out === undefined) {
    expect(!parsed.ok && parsed.reason).toMatch(/\S: \S/);
    return;
  }
  expect(parsed).toStrictEqual({ ok: true, event: out });
  expect(validate(out)).toStrictEqual(out);
  expect(JSON.stringify(validate(JSON.parse(JSON.stringify(out))))).toBe(JSON.stringify(out));
}

type Edit = (e: any) => void;
const set =
  (path: string, value: unknown): Edit =>
  (e) => {
    const keys = path.split('.');
    const last = keys.pop() as string;
    const target = keys.reduce((o, k) => o[k], e);
    if (value === undefined) delete target[last];
    else target[last] = value;
  };
const swap = () => sampleSwap('devnet', pool, 20);
const snapshot = () => samplePoolDiscovered('devnet', pool, 21);
const midprice = () => sampleMidpriceUpdated('devnet', pool, 22);
const split = () => sampleFeeSplitChanged('devnet', pool, 23);

/** [what, event, edit, accepted]: the edges the differential run covered, each pinned. */
const edges: Array<[string, () => HadronEvent, Edit, boolean]> = [
  ['u64 at 2^64 − 1', swap, set('data.amountIn', '18446744073709551615'), true],
  ['u64 at 2^64', swap, set('data.amountIn', '18446744073709551616'), false],
  ['u64 of 20 nines', swap, set('data.amountIn', '99999999999999999999'), false],
  ['u64 of 21 digits', swap, set('data.amountIn', '100000000000000000000'), false],
  ['u64 zero', swap, set('data.amountIn', '0'), true],
  ['u64 with a leading zero', swap, set('data.amountIn', '09'), false],
  ['u64 "00"', swap, set('data.amountIn', '00'), false],
  ['u64 with a space', swap, set('data.amountIn', ' 1'), false],
  ['u64 in exponent form', swap, set('data.amountIn', '1e3'), false],
  ['u64 empty', swap, set('data.amountIn', ''), false],
  ['u64 as a number', swap, set('data.amountIn', 1000), false],
  ['key of 32 chars', swap, set('pool', '1'.repeat(32)), true],
  ['key of 44 chars', swap, set('pool', '1'.repeat(44)), true],
  ['key of 45 chars', swap, set('pool', '1'.repeat(45)), false],
  ['key of 31 chars', swap, set('pool', fakeAddress('edge').slice(0, 31)), false],
  ['key with O (not base58)', swap, set('data.trader', 'O'.repeat(40)), false],
  ['key with 0 (not base58)', swap, set('data.trader', '0'.repeat(40)), false],
  ['key with l (not base58)', swap, set('data.trader', 'l'.repeat(40)), false],
  ['signature of 63 chars', swap, set('signature', '2'.repeat(63)), false],
  ['signature of 64 chars', swap, set('signature', '2'.repeat(64)), true],
  ['signature of 90 chars', swap, set('signature', '2'.repeat(90)), true],
  ['signature of 91 chars', swap, set('signature', '2'.repeat(91)), false],
  ['null signature', swap, set('signature', null), true],
  ['empty id', swap, set('id', ''), false],
  ['id of 200 chars', swap, set('id', 'x'.repeat(200)), true],
  ['id of 201 chars', swap, set('id', 'x'.repeat(201)), false],
  ['decoderVersion of 32 chars', swap, set('decoderVersion', 'x'.repeat(32)), true],
  ['decoderVersion of 33 chars', swap, set('decoderVersion', 'x'.repeat(33)), false],
  ['slot 0', swap, set('slot', 0), true],
  ['slot 2^53 (any integer, as zod 3 took)', swap, set('slot', 2 ** 53), true],
  ['negative slot', swap, set('slot', -1), false],
  ['fractional slot', swap, set('slot', 1.5), false],
  ['NaN slot', swap, set('slot', Number.NaN), false],
  ['infinite slot', swap, set('slot', Number.POSITIVE_INFINITY), false],
  ['slot as text', swap, set('slot', '1'), false],
  ['negative blockTime', swap, set('blockTime', -1), true],
  ['null blockTime', swap, set('blockTime', null), true],
  ['fractional blockTime', swap, set('blockTime', 1.5), false],
  ['missing txIndex', swap, set('txIndex', undefined), false],
  ['version 2', swap, set('version', 2), false],
  ['cluster testnet', swap, set('cluster', 'testnet'), false],
  ['side sell', swap, set('data.side', 'sell'), true],
  ['side other', swap, set('data.side', 'Unknown'), false],
  ['decimals 30', swap, set('data.decimalsX', 30), true],
  ['decimals 31', swap, set('data.decimalsY', 31), false],
  ['null fee split', swap, set('data.feeSplit', null), true],
  ['empty fee split', swap, set('data.feeSplit', []), true],
  ['fee split with null', swap, set('data.feeSplit', [null]), false],
  ['ppm 1,000,000', split, set('data.feePpm', 1_000_000), true],
  ['ppm 1,000,001', split, set('data.feePpm', 1_000_001), false],
  ['negative ppm', split, set('data.feePpm', -1), false],
  ['recipient ppm 1,000,001', split, set('data.recipients', [{ recipient: fakeAddress('r'), ppm: 1_000_001 }]), false],
  ['symbol of 64 chars', snapshot, set('data.tokenX.symbol', 'x'.repeat(64)), true],
  ['symbol of 65 chars', snapshot, set('data.tokenX.symbol', 'x'.repeat(65)), false],
  ['name of 128 chars', snapshot, set('data.tokenY.name', 'x'.repeat(128)), true],
  ['name of 129 chars', snapshot, set('data.tokenY.name', 'x'.repeat(129)), false],
  ['icon of 2049 chars', snapshot, set('data.tokenX.icon', 'x'.repeat(2049)), false],
  ['poolStateRaw 255', snapshot, set('data.poolStateRaw', 255), true],
  ['poolStateRaw 256', snapshot, set('data.poolStateRaw', 256), false],
  ['programVersion 2', snapshot, set('data.programVersion', 2), true],
  ['programVersion 3', snapshot, set('data.programVersion', 3), false],
  ['poolState Closed', snapshot, set('data.poolState', 'Closed'), true],
  ['unknown poolState', snapshot, set('data.poolState', 'Unknown'), false],
  ['boolean as 1', snapshot, set('data.hasPoolFee', 1), false],
  ['null feePpm', snapshot, set('data.feePpm', null), true],
  ['absent midpriceAfterQ32 (events before decoder 1.1.0)', midprice, set('data.midpriceAfterQ32', undefined), true],
  ['null midpriceAfterQ32', midprice, set('data.midpriceAfterQ32', null), true],
  ['midpriceAfterQ32 as a number', midprice, set('data.midpriceAfterQ32', 5), false],
  ['unknown instruction', midprice, set('data.instruction', 'SwapExecuted'), false],
  ['missing sequence', midprice, set('data.sequence', undefined), false],
  ['data as an array', swap, set('data', []), false],
];

describe('event contracts v1 on their edges', () => {
  it('accept every sample of every event type, returning an equal value', () => {
    for (const e of samples) {
      expectWellBehaved(e);
      expect(validate(e)).toStrictEqual(e);
    }
    expect(new Set(samples.map((e) => e.type))).toEqual(new Set(hadronEventSchema.options.map((o) => o.shape.type.value)));
  });

  it.each(edges)('%s', (_what, make, edit, accepted) => {
    const e = structuredClone(make());
    edit(e);
    expect({ accepted: validate(e) !== undefined, e }).toEqual({ accepted, e });
    expectWellBehaved(e);
  });

  it('keep an absent optional key absent', () => {
    const e: any = midprice();
    delete e.data.midpriceAfterQ32;
    expect(Object.keys(validate(e)!.data)).not.toContain('midpriceAfterQ32');
  });

  it('refuse non-objects and unknown types, and one event type wearing another unless the shapes are the same', () => {
    for (const v of [undefined, null, true, 0, '', 'SwapExecuted', [], {}, { type: 'SwapHappened' }]) expect(validate(v)).toBeUndefined();
    for (const e of samples)
      for (const other of samples) {
        const sameShape =
          e.type === other.type || (['PoolDiscovered', 'PoolConfigChanged'].includes(e.type) && ['PoolDiscovered', 'PoolConfigChanged'].includes(other.type));
        expect({ from: e.type, to: other.type, accepted: validate({ ...e, type: other.type }) !== undefined }).toEqual({
          from: e.type,
          to: other.type,
          accepted: sameShape,
        });
      }
  });

  it('refuse or accept mutated events cleanly: never a throw, accepted output stripped to a fixed point', () => {
    const mutation = fc.record<Mutation>({
      path: fc.nat(),
      op: fc.constantFrom('set', 'set', 'delete', 'extra'),
      value: edgeValue,
      extraKey: fc.constantFrom('extra', 'type', '__proto__', 'constructor', 'toString', 'id'),
    });
    fc.assert(
      fc.property(fc.constantFrom(...samples), fc.array(mutation, { minLength: 1, maxLength: 3 }), (event, ms) => expectWellBehaved(mutate(event, ms))),
      { numRuns: Number(process.env.FC_RUNS ?? 5_000) },
    );
    fc.assert(
      fc.property(fc.oneof(edgeValue, fc.anything()), (v) => expectWellBehaved(v)),
      { numRuns: Number(process.env.FC_RUNS_ANY ?? 2_000) },
    );
  });

  it('strips unknown keys at every level, as the contract does', () => {
    const swap = sampleSwap('devnet', pool, 11);
    const noisy = { ...swap, extra: 1, data: { ...swap.data, feeSplit: [{ recipient: fakeAddress('r'), ppm: 1, note: 'x' }], debug: true } };
    const r = parseHadronEvent(JSON.stringify(noisy));
    expect(r).toEqual({ ok: true, event: { ...swap, data: { ...swap.data, feeSplit: [{ recipient: fakeAddress('r'), ppm: 1 }] } } });
    expect(r.ok && Object.keys(r.event)).not.toContain('extra');
  });
});
