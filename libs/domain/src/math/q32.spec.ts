import { accountVectors } from '../hadron/testing/golden-vectors';
import { humanPriceDecimal, humanPriceDouble, q32ToDecimal, q32ToDouble, spreadBpsDecimal, spreadBpsDouble } from './q32';

const Q = 1n << 32n;
const U64_MAX = (1n << 64n) - 1n;

describe('Q32 — golden oracle vectors (exact strings, nearest doubles)', () => {
  const oracles = accountVectors.cases.filter((c) => c.kind === 'oracle');

  it.each(oracles.map((c) => [c.name, c] as const))('derives %s', (_name, c) => {
    const mid = BigInt(c.expected.midprice_q32 as string);
    const factor = BigInt(c.expected.spread_factor_q32 as string);
    const { decimals_x: dx, decimals_y: dy } = c.expected.derived!;
    expect({
      decimals_x: dx,
      decimals_y: dy,
      midprice_raw: q32ToDecimal(mid),
      midprice_human: humanPriceDecimal(mid, dx, dy),
      midprice_human_f64: humanPriceDouble(mid, dx, dy),
      spread_factor: q32ToDecimal(factor),
      spread_bps: spreadBpsDecimal(factor),
      spread_bps_f64: spreadBpsDouble(factor),
    }).toEqual(c.expected.derived);
  });
});

describe('Q32 — exact decimals', () => {
  it('prints integers without a point and trims trailing zeros', () => {
    expect(q32ToDecimal(0n)).toBe('0');
    expect(q32ToDecimal(Q)).toBe('1');
    expect(q32ToDecimal(Q / 2n)).toBe('0.5');
    expect(q32ToDecimal(1n)).toBe('0.00000000023283064365386962890625');
    expect(q32ToDecimal(U64_MAX)).toBe('4294967295.99999999976716935634613037109375');
  });

  it('shifts by 10^(dx − dy) in both directions, exactly', () => {
    expect(humanPriceDecimal(3n * Q, 9, 6)).toBe('3000');
    expect(humanPriceDecimal(3n * Q, 6, 9)).toBe('0.003');
    expect(humanPriceDecimal(1n, 0, 18)).toBe(`0.${'0'.repeat(27)}23283064365386962890625`);
  });

  it('gives signed spread bps: 0 at factor 1, negative above 1', () => {
    expect(spreadBpsDecimal(Q)).toBe('0');
    expect(spreadBpsDecimal(Q + Q / 2n)).toBe('-5000');
    expect(spreadBpsDecimal(0n)).toBe('10000');
    expect(spreadBpsDecimal(U64_MAX)).toBe('-42949672949999.9999976716935634613037109375');
  });
});

describe('Q32 — nearest doubles', () => {
  it('equals the double nearest to the exact decimal', () => {
    let seed = 7n;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) & U64_MAX;
      const q = seed >> BigInt(i % 64);
      // V8 parses decimal strings with correct rounding: an independent oracle for ours.
      expect(q32ToDouble(q)).toBe(Number(q32ToDecimal(q)));
      expect(humanPriceDouble(q, 6, 9)).toBe(Number(humanPriceDecimal(q, 6, 9)));
      expect(spreadBpsDouble(q)).toBe(Number(spreadBpsDecimal(q)));
    }
  });

  it('rounds ties to even', () => {
    // (2^53 + 1) and (2^53 + 3), over 2^32, sit exactly halfway between two doubles: each goes to
    // the neighbour with an even last mantissa bit (2^53 and 2^53 + 4).
    expect(q32ToDouble((1n << 53n) + 1n)).toBe(2 ** 21);
    expect(q32ToDouble((1n << 53n) + 3n)).toBe(2 ** 21 + 2 ** -30);
  });
});
