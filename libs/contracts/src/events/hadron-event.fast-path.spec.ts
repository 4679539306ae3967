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
import { CLUSTERS, POOL_STATES, type Cluster } from './envelope';
import { fastParseHadronEvent } from './hadron-event.fast-path';
import { hadronEventSchema, parseHadronEvent, type HadronEvent, type ParseResult } from './hadron-event';
import { MIDPRICE_INSTRUCTIONS } from './midprice-updated.v1';

/**
 * The hand-written fast path of parseHadronEvent against zod alone, on generated events: valid
 * ones (the sample generators, varied within the contract) and mutated ones (fields dropped,
 * nulled, retyped, edited a character at a time, pushed past their bounds; keys added, inherited).
 * For every input the fast path alone must accept exactly what zod accepts (so valid events never
 * pay for zod) and parseHadronEvent must return what a pure zod parse returns: the same event,
 * key for key and in the same order, or the same reason.
 */

/** The value parseHadronEvent validates: JSON text parsed, anything else as given. */
function valueOf(input: unknown): { value: unknown } | { notJson: string } {
  if (typeof input !== 'string') return { value: input };
  try {
    return { value: JSON.parse(input) };
  } catch (e) {
    return { notJson: `not JSON: ${(e as Error).message}` };
  }
}

/** parseHadronEvent as it was before the fast path: JSON.parse, zod, zod's issues as the reason. */
function zodReference(input: unknown): ParseResult {
  const parsed = valueOf(input);
  if ('notJson' in parsed) return { ok: false, reason: parsed.notJson };
  const result = hadronEventSchema.safeParse(parsed.value);
  if (result.success) return { ok: true, event: result.data };
  const reason = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, reason };
}

/** Keys in order at every level (toStrictEqual ignores order; a consumer that serialises does not). */
function keyOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(keyOrder);
  if (typeof v === 'object' && v !== null) return Object.keys(v).map((k) => [k, keyOrder((v as Record<string, unknown>)[k])]);
  return v;
}

/** Every object and array in `v`: an accepted event must share none with the input (zod copies). */
function containers(v: unknown, out = new Set<object>()): Set<object> {
  if (typeof v === 'object' && v !== null && !out.has(v)) {
    out.add(v);
    for (const x of Object.values(v)) containers(x, out);
  }
  return out;
}

function expectSameAsZod(input: unknown): void {
  const expected = zodReference(input);
  const parsed = valueOf(input);
  if ('value' in parsed) expect({ fastPathAccepts: fastParseHadronEvent(parsed.value) !== undefined }).toEqual({ fastPathAccepts: expected.ok });
  const actual = parseHadronEvent(input);
  expect(actual).toStrictEqual(expected);
  if (actual.ok && expected.ok && 'value' in parsed) {
    expect(keyOrder(actual.event)).toStrictEqual(keyOrder(expected.event));
    const inputs = containers(parsed.value);
    expect([...containers(actual.event)].filter((c) => inputs.has(c))).toEqual([]);
  }
}

const pools = [fakeAddress('fast-path-a'), fakeAddress('fast-path-b')];
/** Every event type, and the shapes the samples lack: a midprice with the oracle's after-values, a swap with a fee split. */
const makers: Array<(cluster: Cluster, pool: string, n: number) => HadronEvent> = [
  samplePoolDiscovered,
  (c, p, n) => ({ ...samplePoolDiscovered(c, p, n), type: 'PoolConfigChanged' }),
  sampleMidpriceUpdated,
  (c, p, n) => {
    const e = sampleMidpriceUpdated(c, p, n);
    return { ...e, data: { ...e.data, midpriceAfterQ32: e.data.midpriceQ32, spreadFactorAfterQ32: null } };
  },
  sampleSwap,
  (c, p, n) => {
    const e = sampleSwap(c, p, n);
    return { ...e, data: { ...e.data, feeSplit: [{ recipient: fakeAddress(`split:${n}`), ppm: n % 1_000_001 }] } };
  },
  sampleVaultBalancesChanged,
  sampleFeeSplitChanged,
  sampleTokenMetadataChanged,
];

/** Values each field may hold within the contract (by key, at any depth); `absent` deletes an optional key. */
const absent = Symbol('absent');
const u64s = ['0', '1', '4294967296', '9999999999999999999', '10000000000000000000', '18446744073709551615'];
const keys = ['1'.repeat(32), 'z'.repeat(44), fakeAddress('fast-path-key')];
const recipientLists = [
  [],
  [{ recipient: fakeAddress('r1'), ppm: 0 }],
  [
    { recipient: fakeAddress('r1'), ppm: 1_000_000 },
    { recipient: '2'.repeat(32), ppm: 7 },
  ],
];
const validByKey: Record<string, readonly unknown[]> = {
  id: ['x', 'é'.repeat(200), 'sig:1:2'],
  cluster: CLUSTERS,
  pool: keys,
  slot: [0, -0, 2 ** 53, 2 ** 60],
  blockTime: [null, 0, -1, -(2 ** 60), 2 ** 53 + 2],
  signature: [null, '1'.repeat(64), 'z'.repeat(90), fakeSignature('fast-path')],
  txIndex: [null, 0],
  ixIndex: [null, 0, 255],
  innerIndex: [null, 0, 3],
  decoderVersion: ['1', 'v'.repeat(32)],
  side: ['buy', 'sell'],
  instruction: MIDPRICE_INSTRUCTIONS,
  poolState: POOL_STATES,
  programVersion: [1, 2],
  poolStateRaw: [0, 255],
  oracleMode: [0, 255],
  decimals: [0, 30],
  decimalsX: [0, 30],
  decimalsY: [0, 30],
  feePpm: [0, 1_000_000],
  ppm: [0, 1_000_000],
  spreadConfigInitialized: [true, false],
  hasPoolFee: [true, false],
  symbol: ['', 'x'.repeat(64), '🦀'],
  name: ['', 'n'.repeat(128)],
  icon: ['', 'https://x/' + 'i'.repeat(2038)],
  feeSplit: [null, ...recipientLists],
  recipients: recipientLists,
  midpriceAfterQ32: [absent, null, ...u64s],
  spreadFactorAfterQ32: [absent, null, ...u64s],
  midpriceQ32: [null, ...u64s],
  spreadFactorQ32: [null, ...u64s],
  quotingAuthority: keys,
  ...Object.fromEntries(
    ['sequence', 'seed', 'amountIn', 'amountInToVault', 'amountOut', 'feeRaw', 'vaultXAfter', 'vaultYAfter', 'amountX', 'amountY'].map((k) => [k, u64s]),
  ),
  ...Object.fromEntries(
    ['trader', 'inputMint', 'outputMint', 'feeMint', 'feeRecipientAta', 'vaultX', 'vaultY', 'oracle', 'programId', 'authority', 'mint', 'recipient'].map(
      (k) => [k, keys],
    ),
  ),
};
// Nullable only in a pool snapshot (a swap's or a split's are not): set there by path below.
const snapshotNullables = ['quotingAuthority', 'feeConfig', 'feePpm', 'feeRecipient'];

type Container = Record<string, unknown> | unknown[];

/**
 * An array's elements (holes kept) in a plain array. `arrayify` makes arrays that carry an object's keys:
 * an own `__proto__` key gives one that object as its prototype (no `map`, no iterator), an own
 * `constructor` key makes `Array.prototype.map` and `slice` throw (they read it to build their result).
 */
function elements(v: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  out.length = v.length;
  for (let i = 0; i < v.length; i++) if (i in v) out[i] = v[i];
  return out;
}

/** A deep copy that keeps holes, own `__proto__` keys and prototypes carrying keys (structuredClone drops the last). */
function clone<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  const proto = Object.getPrototypeOf(v) as object | null;
  if (Array.isArray(v)) {
    const out = elements(v).map(clone);
    if (proto !== Array.prototype) Object.setPrototypeOf(out, proto === null ? null : clone(proto));
    return out as T;
  }
  const out = Object.create(proto === Object.prototype || proto === null ? proto : clone(proto)) as Record<string, unknown>;
  for (const k of Object.keys(v)) addKey(out, k, clone((v as Record<string, unknown>)[k]));
  return out as T;
}

/** Every (container, key) in a value, depth first: the places an edit can hit. */
function slots(v: unknown, out: Array<[Container, string | number]> = []): Array<[Container, string | number]> {
  if (typeof v !== 'object' || v === null) return out;
  for (const k of Object.keys(v)) {
    out.push([v as Container, Array.isArray(v) ? Number(k) : k]);
    slots((v as Record<string, unknown>)[k], out);
  }
  return out;
}

/** Object containers only: where an extra key can go. */
const objectsIn = (v: unknown): Array<Record<string, unknown>> =>
  [v, ...slots(v).map(([c, k]) => (c as Record<string | number, unknown>)[k])].filter(
    (x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x),
  );

/** A key that is not the contract's at that level (zod strips it); `__proto__` becomes an own key, as JSON.parse makes it. */
function addKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Keys no contract has at any level, then some it has at another level (or, when absent, at the same one). */
const unknownKeys = ['extra', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const extraKeys = [...unknownKeys, 'type', 'data', 'midpriceAfterQ32', 'spreadFactorAfterQ32', 'tokenX', 'recipients', 'pool'];

type Variation = { slot: number; pick: number; op: 'valid' | 'extra' | 'inherit'; key: number; value: unknown };

/** A valid event, to be passed as a value or as JSON text: a sample, then fields set to other values the contract allows, unknown keys added, a key moved to the prototype. */
const validEvent = fc
  .record({
    make: fc.nat(makers.length - 1),
    cluster: fc.constantFrom(...CLUSTERS),
    pool: fc.constantFrom(...pools),
    n: fc.nat(1_000_000),
    text: fc.boolean(),
    variations: fc.array(
      fc.record<Variation>({
        slot: fc.nat(),
        pick: fc.nat(),
        op: fc.constantFrom('valid', 'valid', 'valid', 'extra', 'inherit'),
        key: fc.nat(unknownKeys.length - 1),
        value: fc.jsonValue({ maxDepth: 2 }),
      }),
      { maxLength: 6 },
    ),
  })
  .map(({ make, cluster, pool, n, text, variations }) => {
    const e: unknown = clone(makers[make](cluster, pool, n));
    for (const v of variations) {
      const all = slots(e);
      const [container, key] = all[v.slot % all.length];
      const target = container as Record<string | number, unknown>;
      if (v.op === 'extra') {
        const objects = objectsIn(e);
        const o = objects[v.slot % objects.length];
        addKey(o, unknownKeys[v.key], clone(v.value));
      } else if (v.op === 'inherit' && !text && !Array.isArray(container) && Object.getPrototypeOf(container) === Object.prototype) {
        // zod reads `value[key]`, so a key found on the prototype counts (not in JSON text, which has none).
        Object.setPrototypeOf(container, { [key]: target[key] });
        delete target[key];
      } else if (v.op === 'valid') {
        const name = String(key);
        const isSnapshot = typeof container === 'object' && 'poolStateRaw' in container;
        const values = [...(Object.hasOwn(validByKey, name) ? validByKey[name] : []), ...(isSnapshot && snapshotNullables.includes(name) ? [null] : [])];
        if (values.length === 0 || Array.isArray(container)) continue;
        const value = values[v.pick % values.length];
        if (value === absent) delete target[key];
        else target[key] = clone(value);
      }
    }
    return { event: e, text };
  });

/** Values that break (or sit next to) a rule: wrong types, bounds, bad base58 and decimal text. */
const badValue = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    null,
    true,
    false,
    0,
    -0,
    -1,
    1.5,
    31,
    256,
    1_000_001,
    2 ** 53,
    -(2 ** 53),
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    '',
    '-1',
    '-0',
    '00',
    '01',
    '+1',
    ' 1',
    '1 ',
    '1.0',
    '1e3',
    '0x10',
    '١',
    '18446744073709551616',
    '18446744073709551625',
    '19000000000000000000',
    '99999999999999999999',
    '100000000000000000000',
    '340282366920938463463374607431768211455',
    '1'.repeat(31),
    '1'.repeat(45),
    '2'.repeat(63),
    '2'.repeat(91),
    'O'.repeat(40),
    'I'.repeat(40),
    'l'.repeat(40),
    '0'.repeat(40),
    'x'.repeat(201),
    'v'.repeat(33),
    'x'.repeat(65),
    'x'.repeat(129),
    'x'.repeat(2049),
    'testnet',
    'Mainnet-beta',
    'Buy',
    'Unknown',
    'PoolDiscovered',
    'SwapExecuted',
    3,
    2,
    1,
    [],
    [null],
    [{ recipient: fakeAddress('r'), ppm: -1 }],
    [{ recipient: fakeAddress('r') }],
    [{ ppm: 5 }],
    {},
    { mint: fakeAddress('m') },
    new Array(1),
  ),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer(),
  fc.double(),
  fc.bigInt().map(String),
  fc.string({ maxLength: 50 }),
);

/** Values just outside the contract, by key (at any depth): what a loosened bound would let through. */
const badU64s = ['18446744073709551616', '-1', '01', '', ' 1', 1];
const badKeys = ['1'.repeat(31), 'z'.repeat(45), 'l' + fakeAddress('bad').slice(1), fakeSignature('bad'), 7];
const badRecipientLists = [
  [null],
  [{ recipient: fakeAddress('r'), ppm: 1_000_001 }],
  [{ recipient: 'r', ppm: 1 }],
  [{ recipient: fakeAddress('r') }],
  new Array(1),
  {},
];
const beyondByKey: Record<string, readonly unknown[]> = {
  id: ['', 'x'.repeat(201), 5],
  version: [0, 2, '1'],
  cluster: ['testnet', 'Devnet'],
  slot: [-1, 0.5, '1', null],
  blockTime: [0.5, Number.POSITIVE_INFINITY, '1'],
  signature: ['1'.repeat(63), 'z'.repeat(91), fakeAddress('not-a-signature'), '0' + fakeSignature('s').slice(1)],
  txIndex: [-1, 0.5, undefined],
  ixIndex: [-1, 0.5, undefined],
  innerIndex: [-1, 0.5, undefined],
  decoderVersion: ['', 'v'.repeat(33)],
  side: ['Buy', 'swap'],
  instruction: ['UpdateSpread', 'updateMidprice'],
  poolState: ['paused', 'Open'],
  programVersion: [0, 3, '1'],
  poolStateRaw: [-1, 256, 1.5],
  oracleMode: [-1, 256, 1.5],
  decimals: [-1, 31],
  decimalsX: [-1, 31],
  decimalsY: [-1, 31],
  feePpm: [-1, 1_000_001, null],
  ppm: [-1, 1_000_001, 0.5],
  spreadConfigInitialized: [0, 'true', null],
  hasPoolFee: [1, 'false', null],
  symbol: ['x'.repeat(65), null],
  name: ['n'.repeat(129), 0],
  icon: ['i'.repeat(2049), null],
  feeSplit: badRecipientLists,
  recipients: [...badRecipientLists, null],
  midpriceAfterQ32: badU64s,
  spreadFactorAfterQ32: badU64s,
  midpriceQ32: badU64s,
  spreadFactorQ32: badU64s,
  tokenX: [[], null, 'x', {}],
  tokenY: [[], null, 'x', {}],
  data: [[], null, 'x', {}],
  ...Object.fromEntries(
    ['sequence', 'seed', 'amountIn', 'amountInToVault', 'amountOut', 'feeRaw', 'vaultXAfter', 'vaultYAfter', 'amountX', 'amountY'].map((k) => [k, badU64s]),
  ),
  ...Object.fromEntries(
    [
      'pool',
      'trader',
      'inputMint',
      'outputMint',
      'feeMint',
      'feeRecipientAta',
      'vaultX',
      'vaultY',
      'oracle',
      'programId',
      'authority',
      'mint',
      'recipient',
      'quotingAuthority',
      'feeConfig',
      'feeRecipient',
    ].map((k) => [k, badKeys]),
  ),
};

/** A one-character edit of text, or a nudge of a number: the mutations that land next to a rule. */
const CHARS = ['0', 'O', 'I', 'l', '1', 'z', '9', '-', '+', ' ', '.', 'é', '١', '\u0000'];
function nudge(v: unknown, pick: number): unknown {
  if (typeof v === 'string') {
    const at = pick % (v.length + 1);
    const c = CHARS[pick % CHARS.length];
    switch (pick % 5) {
      case 0:
        return v.slice(0, at) + c + v.slice(at + 1); // replace
      case 1:
        return v.slice(0, at) + c + v.slice(at); // insert
      case 2:
        return v.slice(0, at) + v.slice(at + 1); // drop
      case 3:
        return /^[0-9]+$/.test(v) ? (BigInt(v) + BigInt(pick % 3) - 1n).toString() : v + v; // ±1 on digits, else longer
      default:
        return Number.isNaN(Number(v)) ? v.toUpperCase() : Number(v); // the number a string spells
    }
  }
  if (typeof v === 'number') return [v + 1, v - 1, -v - 1, v + 0.5, String(v), v * 2 ** 53][pick % 6];
  if (typeof v === 'boolean') return [!v, String(v), Number(v)][pick % 3];
  if (Array.isArray(v)) {
    const a = elements(v);
    return [[...a, ...a], a.slice(1), [...a, null], Object.assign([...a], { length: a.length + 1 })][pick % 4];
  }
  return v;
}

type Mutation = {
  slot: number;
  op: 'delete' | 'null' | 'set' | 'beyond' | 'nudge' | 'copy' | 'extra' | 'arrayify';
  value: unknown;
  pick: number;
  key: number;
};

function mutate(event: unknown, mutations: readonly Mutation[]): unknown {
  const copy: unknown = clone(event);
  for (const m of mutations) {
    const all = slots(copy);
    if (all.length === 0) break;
    const [container, key] = all[m.slot % all.length];
    const target = container as Record<string | number, unknown>;
    if (m.op === 'delete') delete target[key];
    else if (m.op === 'null') target[key] = null;
    else if (m.op === 'set') target[key] = clone(m.value);
    else if (m.op === 'beyond') {
      const values = Object.hasOwn(beyondByKey, key) ? beyondByKey[key] : [];
      if (values.length > 0) target[key] = clone(values[m.pick % values.length]);
    } else if (m.op === 'nudge') target[key] = nudge(target[key], m.pick);
    else if (m.op === 'copy') {
      // Another field's value: valid somewhere in the contract, here perhaps not (a key as a signature, a ppm as decimals).
      const [from, fromKey] = all[m.pick % all.length];
      target[key] = clone((from as Record<string | number, unknown>)[fromKey]);
    } else if (m.op === 'arrayify') {
      // An array carrying an object's keys (only a value can be one): zod refuses arrays where it wants an object.
      const v = target[key];
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) target[key] = Object.assign([], v);
    } else {
      const objects = objectsIn(copy);
      if (objects.length > 0) addKey(objects[m.slot % objects.length], extraKeys[m.key], clone(m.value));
    }
  }
  return copy;
}

const mutation = fc.record<Mutation>({
  slot: fc.nat(),
  op: fc.constantFrom('delete', 'null', 'set', 'beyond', 'beyond', 'beyond', 'nudge', 'nudge', 'copy', 'extra', 'arrayify'),
  value: badValue,
  pick: fc.nat(),
  key: fc.nat(extraKeys.length - 1),
});

/** As the log hands it over (JSON text) and as a producer passes it (a value, where undefined and NaN survive). */
const asInput = (v: unknown, text: boolean): unknown => (text ? JSON.stringify(v) : v);
const RUNS = Number(process.env.FC_RUNS ?? 4_000);

describe('parseHadronEvent fast path, against zod alone', () => {
  it('takes every valid event the generators make, returning what zod returns', () => {
    fc.assert(
      fc.property(validEvent, ({ event, text }) => {
        expect(zodReference(asInput(event, text)).ok).toBe(true); // the generator stays inside the contract
        expectSameAsZod(asInput(event, text));
      }),
      { numRuns: RUNS },
    );
  });

  it('refuses exactly what zod refuses, with zod reason, on mutated events', () => {
    fc.assert(
      fc.property(validEvent, fc.array(mutation, { minLength: 1, maxLength: 3 }), ({ event, text }, ms) => expectSameAsZod(asInput(mutate(event, ms), text))),
      { numRuns: RUNS * 3 },
    );
  });

  it('refuses, as zod does, every field of every event type set just past its rule', () => {
    const accepted: string[] = [];
    for (const make of makers) {
      const e = make('devnet', pools[1], 9);
      const all = slots(e);
      for (let i = 0; i < all.length; i++) {
        const key = all[i][1];
        const values = Object.hasOwn(beyondByKey, key) ? beyondByKey[key] : [];
        for (let pick = 0; pick < values.length; pick++) {
          const bad = mutate(e, [{ slot: i, op: 'beyond', value: undefined, pick, key: 0 }]);
          for (const text of [false, true]) expectSameAsZod(asInput(bad, text));
          if (zodReference(bad).ok) accepted.push(`${e.type} ${key}=${JSON.stringify(values[pick])}`);
        }
        expectSameAsZod(mutate(e, [{ slot: i, op: 'arrayify', value: undefined, pick: 0, key: 0 }]));
      }
    }
    // The one value past a rule of one event (a fee split's feePpm) that another's allows.
    expect(accepted).toEqual(['PoolDiscovered feePpm=null', 'PoolConfigChanged feePpm=null']);
  });

  it('agrees with zod on values that are not events at all', () => {
    fc.assert(
      fc.property(fc.oneof(badValue, fc.anything()), (v) => expectSameAsZod(v)),
      { numRuns: RUNS / 2 },
    );
  });

  it.each([
    ['u64 one above 2^64 − 1', (e: any) => (e.data.amountIn = '18446744073709551616')],
    ['negative u64', (e: any) => (e.data.vaultXAfter = '-1')],
    ['u64 with a leading zero', (e: any) => (e.data.feeRaw = '01')],
    ['u64 as a number', (e: any) => (e.data.amountOut = 150000)],
    ['key of 45 chars', (e: any) => (e.data.trader = '1'.repeat(45))],
    ['key with 0', (e: any) => (e.pool = '0' + e.pool.slice(1))],
    ['signature of 63 chars', (e: any) => (e.signature = '2'.repeat(63))],
    ['decimals 31', (e: any) => (e.data.decimalsY = 31)],
    ['negative slot', (e: any) => (e.slot = -1)],
    ['fractional txIndex', (e: any) => (e.txIndex = 0.5)],
    ['missing innerIndex', (e: any) => delete e.innerIndex],
    ['id of 201 chars', (e: any) => (e.id = 'x'.repeat(201))],
    ['version 2', (e: any) => (e.version = 2)],
    ['fee split recipient with ppm 1,000,001', (e: any) => (e.data.feeSplit = [{ recipient: fakeAddress('r'), ppm: 1_000_001 }])],
    ['fee split with a hole', (e: any) => (e.data.feeSplit = new Array(1))],
  ])('refuses a swap with %s, as zod does and with its reason', (_what, edit) => {
    const e = clone(sampleSwap('devnet', pools[0], 3)) as any;
    edit(e);
    expect(fastParseHadronEvent(e)).toBeUndefined();
    expect(zodReference(e).ok).toBe(false);
    expectSameAsZod(e);
    expectSameAsZod(JSON.stringify(e));
  });

  it('keeps an optional key given as undefined (a value, not JSON) and leaves an absent one absent, as zod does', () => {
    const e: any = sampleMidpriceUpdated('devnet', pools[0], 4);
    const given = parseHadronEvent({ ...e, data: { ...e.data, midpriceAfterQ32: undefined } });
    expect(given.ok && Object.keys(given.event.data)).toContain('midpriceAfterQ32');
    const missing = parseHadronEvent(e);
    expect(missing.ok && Object.keys(missing.event.data)).not.toContain('midpriceAfterQ32');
    expectSameAsZod({ ...e, data: { ...e.data, midpriceAfterQ32: undefined } });
  });
});
