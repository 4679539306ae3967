import { feeShares, normaliseSplit, splitProblem } from './fee-split';
import { exactDecimal, q32ToQuoteDecimal, q32ToQuoteNumber } from '../math/q32';
import { tvlQ32 } from './tvl';
import { swapProblem, type SwapFacts } from './swap-checks';
import { valueSwap } from './swap-valuation';

const Q = 4_294_967_296n; // 2^32
const MID_1_5 = (3n * Q) / 2n; // 1.5 quote atoms per base atom

describe('swap valuation (DESIGN §4), in Q32 quote atoms', () => {
  it('values a buy: volume = amount_in_y, fee = fee_y, spread = net input − output × mid', () => {
    // given a buy of 600 X for 1000 Y with a 10 Y fee, mid 1.5
    const v = valueSwap({ side: 'buy', amountIn: 1000n, amountInToVault: 990n, amountOut: 600n, feeRaw: 10n, midpriceQ32: MID_1_5 });
    // then volume = 1000 × 2^32; fee = 10 × 2^32; spread = 990 − 600 × 1.5 = 90 quote atoms
    expect(v).toEqual({
      volumeQ32: 4_294_967_296_000n,
      protocolFeeQ32: 42_949_672_960n,
      spreadQ32: 386_547_056_640n, // 90 × 2^32
      feesQ32: 429_496_729_600n, // (90 + 10) × 2^32
      feeXRaw: 0n,
      feeYRaw: 10n,
      priced: true,
    });
  });

  it('values a sell at the midprice in effect: volume = amount_in_x × mid, fee = fee_x × mid', () => {
    // given a sell of 1000 X (fee 10 X) for 1400 Y, mid 1.5
    const v = valueSwap({ side: 'sell', amountIn: 1000n, amountInToVault: 990n, amountOut: 1400n, feeRaw: 10n, midpriceQ32: MID_1_5 });
    // then volume = 1500 Y; fee = 15 Y; spread = 990 × 1.5 − 1400 = 85 Y
    expect(v.volumeQ32).toBe(1500n * Q);
    expect(v.protocolFeeQ32).toBe(15n * Q);
    expect(v.spreadQ32).toBe(85n * Q);
    expect(v.feesQ32).toBe(100n * Q);
    expect([v.feeXRaw, v.feeYRaw]).toEqual([10n, 0n]);
  });

  it('lets the spread go negative on price improvement', () => {
    // 990 × 1.5 = 1485 Y of mid value in, 1500 Y out
    const v = valueSwap({ side: 'sell', amountIn: 1000n, amountInToVault: 990n, amountOut: 1500n, feeRaw: 10n, midpriceQ32: MID_1_5 });
    expect(v.spreadQ32).toBe(-15n * Q);
    expect(v.feesQ32).toBe(0n); // −15 + 15
  });

  it('stays exact with u64 extremes (no precision loss above 2^53)', () => {
    const max = 18_446_744_073_709_551_615n;
    const v = valueSwap({ side: 'sell', amountIn: max, amountInToVault: max, amountOut: 0n, feeRaw: 0n, midpriceQ32: max });
    expect(v.volumeQ32).toBe(340_282_366_920_938_463_426_481_119_284_349_108_225n); // (2^64 − 1)^2
  });

  it('values a swap without a midprice only where no price is needed, and flags it', () => {
    const buy = valueSwap({ side: 'buy', amountIn: 1000n, amountInToVault: 990n, amountOut: 600n, feeRaw: 10n, midpriceQ32: null });
    expect(buy).toEqual({ volumeQ32: 1000n * Q, protocolFeeQ32: 10n * Q, spreadQ32: 0n, feesQ32: 10n * Q, feeXRaw: 0n, feeYRaw: 10n, priced: false });
    const sell = valueSwap({ side: 'sell', amountIn: 1000n, amountInToVault: 990n, amountOut: 1400n, feeRaw: 10n, midpriceQ32: null });
    expect(sell).toEqual({ volumeQ32: 0n, protocolFeeQ32: 0n, spreadQ32: 0n, feesQ32: 0n, feeXRaw: 10n, feeYRaw: 0n, priced: false });
  });

  it('values the fixture buy b_v2_buy_x (250 USDC → 1.653956969 WSOL, fee 2500) at mid 644245094', () => {
    const v = valueSwap({
      side: 'buy',
      amountIn: 250_000_000n,
      amountInToVault: 249_997_500n,
      amountOut: 1_653_956_969n,
      feeRaw: 2_500n,
      midpriceQ32: 644_245_094n,
    });
    expect(v.volumeQ32).toBe(1_073_741_824_000_000_000n); // 250e6 × 2^32
    // 249_997_500 × 2^32 − 1_653_956_969 × 644_245_094 = 1_073_731_086_581_760_000 − 1_065_553_662_965_360_086
    expect(v.spreadQ32).toBe(8_177_423_616_399_914n);
    expect(q32ToQuoteDecimal(v.volumeQ32, 6)).toBe('250');
  });
});

describe('human quote units at the edge', () => {
  it('divides by 2^32 and 10^decimals exactly', () => {
    expect(q32ToQuoteDecimal(1000n * Q, 6)).toBe('0.001');
    expect(q32ToQuoteDecimal(15n, 0)).toBe('0.00000000349245965480804443359375'); // 15 / 2^32
    expect(q32ToQuoteDecimal(-15n * Q, 1)).toBe('-1.5');
    expect(q32ToQuoteNumber(123_456_789n * Q, 6)).toBe(123.456789);
    expect(exactDecimal(0n, 32, 6)).toBe('0');
  });

  it('values tvl as x × mid + y', () => {
    expect(tvlQ32(1000n, 500n, MID_1_5)).toBe(2000n * Q); // 1000 × 1.5 + 500
    expect(tvlQ32(1000n, 500n, null)).toBe(500n * Q);
  });
});

describe('fee split shares', () => {
  const fee = valueSwap({ side: 'sell', amountIn: 1000n, amountInToVault: 990n, amountOut: 1400n, feeRaw: 10n, midpriceQ32: MID_1_5 });

  it('keeps each share exact as fee × ppm; shares of a full split add up to the fee × 10^6', () => {
    const shares = feeShares(fee, [
      { recipient: 'A', ppm: 600_000 },
      { recipient: 'B', ppm: 400_000 },
    ]);
    expect(shares).toEqual([
      { recipient: 'A', ppm: 600_000, feeXRawX1e6: 6_000_000n, feeYRawX1e6: 0n, feeValueQ32X1e6: 15n * Q * 600_000n },
      { recipient: 'B', ppm: 400_000, feeXRawX1e6: 4_000_000n, feeYRawX1e6: 0n, feeValueQ32X1e6: 15n * Q * 400_000n },
    ]);
    expect(shares.reduce((a, s) => a + s.feeValueQ32X1e6, 0n)).toBe(fee.protocolFeeQ32 * 1_000_000n);
    // A's share in human units (decimals 6): 15 Y × 0.6 = 9 atoms
    expect(exactDecimal(shares[0].feeValueQ32X1e6, 32, 6 + 6)).toBe('0.000009');
  });

  it('gives no shares without a split, or for a swap without fee', () => {
    expect(feeShares(fee, null)).toEqual([]);
    const free = valueSwap({ side: 'buy', amountIn: 1000n, amountInToVault: 1000n, amountOut: 600n, feeRaw: 0n, midpriceQ32: MID_1_5 });
    expect(feeShares(free, [{ recipient: 'A', ppm: 1_000_000 }])).toEqual([]);
  });

  it('merges a recipient listed twice and refuses weights above 1,000,000 ppm', () => {
    expect(
      normaliseSplit([
        { recipient: 'A', ppm: 1 },
        { recipient: 'B', ppm: 2 },
        { recipient: 'A', ppm: 3 },
      ]),
    ).toEqual([
      { recipient: 'A', ppm: 4 },
      { recipient: 'B', ppm: 2 },
    ]);
    expect(
      normaliseSplit([
        { recipient: 'B', ppm: 5 },
        { recipient: 'A', ppm: 1 },
        { recipient: 'A', ppm: 2 },
      ]),
    ).toEqual([
      { recipient: 'B', ppm: 5 },
      { recipient: 'A', ppm: 3 },
    ]);
    // Long splits too, with the repeat anywhere.
    const long = Array.from({ length: 20 }, (_, i) => ({ recipient: `R${i}`, ppm: i }));
    expect(normaliseSplit([...long, { recipient: 'R3', ppm: 100 }])).toEqual(long.map((w) => (w.recipient === 'R3' ? { ...w, ppm: 103 } : w)));
    expect(normaliseSplit([...long.slice(0, 5), { recipient: 'R0', ppm: 7 }])).toEqual(
      long.slice(0, 5).map((w) => (w.recipient === 'R0' ? { ...w, ppm: 7 } : w)),
    );
    // Without a repeat: the same weights, in order, as new objects holding recipient and ppm alone.
    const given = [{ recipient: 'A', ppm: 1, extra: true } as { recipient: string; ppm: number }, { recipient: 'B', ppm: 2 }];
    const normalised = normaliseSplit(given);
    expect(normalised).toStrictEqual([
      { recipient: 'A', ppm: 1 },
      { recipient: 'B', ppm: 2 },
    ]);
    expect(normalised[0]).not.toBe(given[0]);
    expect(normaliseSplit(long)).toStrictEqual(long);
    expect(normaliseSplit([])).toStrictEqual([]);
    expect(
      splitProblem([
        { recipient: 'A', ppm: 700_000 },
        { recipient: 'B', ppm: 300_001 },
      ]),
    ).toMatch(/1000001 ppm/);
    expect(splitProblem([{ recipient: 'A', ppm: 700_000 }])).toBeNull();
  });
});

describe('swap checks (poison events)', () => {
  const good: SwapFacts = {
    side: 'sell',
    inputMint: 'X',
    outputMint: 'Y',
    feeMint: 'X',
    amountIn: 100n,
    amountInToVault: 99n,
    feeRaw: 1n,
    decimalsX: 9,
    decimalsY: 6,
    midpriceQ32: MID_1_5,
    feeSplit: null,
  };
  it.each([
    ['decimals out of range', { decimalsY: 31 }, /decimalsY 31 is out of range/],
    ['inconsistent amounts', { amountInToVault: 98n }, /amounts are inconsistent/],
    ['fee in the wrong mint', { feeMint: 'Y' }, /fee mint Y is not the input mint X/],
    ['same mint in and out', { outputMint: 'X' }, /same/],
    ['zero midprice', { midpriceQ32: 0n }, /midpriceQ32 must be positive/],
    [
      'split above 100%',
      {
        feeSplit: [
          { recipient: 'A', ppm: 600_000 },
          { recipient: 'A', ppm: 600_000 },
        ],
      },
      /1200000 ppm/,
    ],
  ])('rejects %s', (_n, patch, reason) => {
    expect(swapProblem({ ...good, ...patch })).toMatch(reason);
  });
  it('accepts a consistent swap, with or without midprice', () => {
    expect(swapProblem(good)).toBeNull();
    expect(swapProblem({ ...good, midpriceQ32: null })).toBeNull();
  });
});
