import { decodeBase58, encodeBase58 } from './base58';
import { HadronDecodeError } from './decode-error';
import { programVersionOf } from './program-ids';
import { decodeInstruction, decodeInstructionBase58, encodeInstruction, type DecodedHadronInstruction } from './instruction.codec';
import { bytesOf, instructionVectors } from './testing/golden-vectors';

const U64_MAX = '18446744073709551615';
const P53 = '9007199254740993'; // 2^53 + 1: not a JS number

function decodeError(run: () => unknown): HadronDecodeError {
  try {
    run();
  } catch (e) {
    if (e instanceof HadronDecodeError) return e;
    throw e;
  }
  throw new Error('expected a HadronDecodeError');
}

describe('Hadron instruction codec — golden vectors', () => {
  const { cases, negative_cases } = instructionVectors;

  it.each(cases.map((c) => [c.name, c] as const))('decodes %s from base64 and from base58', (_name, c) => {
    expect(decodeInstruction(bytesOf(c))).toEqual(c.expected);
    expect(decodeInstructionBase58(c.data_base58)).toEqual(c.expected);
  });

  it.each(negative_cases.map((c) => [c.name, c] as const))('rejects %s with its error code (and the length the tag takes)', (_name, c) => {
    const error = decodeError(() => decodeInstruction(bytesOf(c)));
    expect(error.code).toBe(c.expected_error);
    expect(decodeError(() => decodeInstructionBase58(c.data_base58)).code).toBe(c.expected_error);
    expect(error.expectedLength).toBe(c.expected_length ?? null);
    if (c.tag !== undefined) expect(bytesOf(c)[0]).toBe(c.tag);
  });

  it.each([...cases, ...negative_cases].map((c) => [c.name, c] as const))(
    '%s: its base64, hex and base58 spell the same data_len bytes, for the program it names',
    (_name, c) => {
      const bytes = bytesOf(c);
      expect(bytes.length).toBe(c.data_len);
      expect(Buffer.from(bytes).toString('hex')).toBe(c.data_hex);
      expect([encodeBase58(bytes), Buffer.from(decodeBase58(c.data_base58)).toString('hex')]).toEqual([c.data_base58, c.data_hex]);
      expect(programVersionOf(c.program)).toBe(c.program_version);
    },
  );

  it('decodes is_x = 2 as given: any non-zero is_x sells X on chain', () => {
    const c = cases.find((v) => v.name === 'swap_is_x_2')!;
    expect(decodeInstruction(bytesOf(c))).toMatchObject({ instruction: 'Swap', is_x: 2 });
  });

  it('re-encodes every exact-length vector to the same bytes', () => {
    for (const c of cases.filter((v) => v.data_len === { 3: 26, 5: 17, 9: 17, 10: 25, 11: 3, 12: 3 }[v.expected.tag])) {
      expect(Buffer.from(encodeInstruction(c.expected as unknown as DecodedHadronInstruction)).toString('hex')).toBe(c.data_hex);
    }
  });
});

describe('Hadron instruction codec — classification', () => {
  it('classifies the other dispatched tags 0..24 as known but not decoded', () => {
    for (const tag of [0, 1, 2, 4, 6, 7, 8, 13, 22, 24]) {
      expect(decodeInstruction(Uint8Array.of(tag, 1, 2, 3))).toEqual({ kind: 'other', tag });
    }
  });

  it('rejects tags above 24 as unknown', () => {
    expect(decodeError(() => decodeInstruction(Uint8Array.of(25))).code).toBe('unknown_tag');
  });

  it('reports invalid base58 as a typed error', () => {
    expect(decodeError(() => decodeInstructionBase58('0OIl')).code).toBe('invalid_base58');
  });
});

describe('Hadron instruction codec — round trips', () => {
  const roundTrips: DecodedHadronInstruction[] = [
    { tag: 3, instruction: 'Swap', is_x: 1, amount_in: U64_MAX, min_out: P53, expiration: '-9223372036854775808' },
    { tag: 3, instruction: 'Swap', is_x: 0, amount_in: P53, min_out: '0', expiration: '9223372036854775807' },
    { tag: 5, instruction: 'UpdateMidprice', sequence: U64_MAX, midprice_q32: P53 },
    { tag: 9, instruction: 'UpdateBaseSpread', sequence: P53, spread_factor_q32: U64_MAX },
    { tag: 10, instruction: 'UpdateMidpriceAndBaseSpread', sequence: P53, midprice_q32: U64_MAX, spread_factor_q32: P53 },
    { tag: 11, instruction: 'SwitchPriceCurve', side: 1, slot: 255 },
    { tag: 12, instruction: 'SwitchRiskCurve', side: 0, slot: 7 },
  ];

  it.each(roundTrips.map((ix) => [ix.instruction, ix] as const))('%s: encode → decode is the identity', (_name, ix) => {
    expect(decodeInstruction(encodeInstruction(ix))).toEqual(ix);
  });

  it('refuses to encode values that do not fit their field', () => {
    const swap = roundTrips[0] as Extract<DecodedHadronInstruction, { tag: 3 }>;
    expect(() => encodeInstruction({ ...swap, amount_in: '18446744073709551616' })).toThrow(RangeError);
    expect(() => encodeInstruction({ ...swap, amount_in: '-1' })).toThrow(RangeError);
    expect(() => encodeInstruction({ ...swap, expiration: '9223372036854775808' })).toThrow(RangeError);
    expect(() => encodeInstruction({ ...swap, amount_in: '1.5' })).toThrow(RangeError);
    expect(() => encodeInstruction({ ...swap, is_x: 256 })).toThrow(RangeError);
    expect(() => encodeInstruction({ tag: 11, instruction: 'SwitchPriceCurve', side: 2, slot: 0 })).toThrow(RangeError);
  });
});
