import { encodeFeeConfigAccount, type FeeConfigAccount } from './fee-config-account.layout';
import { encodeFeeSplit, MAX_SPLIT_RECIPIENTS, readFeeSplit } from './fee-split.layout';

/** Reading the ASSUMED split layout defensively: a tail that is not a split is refused, with why. */

const A = 'DvyDh6XMdHREn2xKJtRLpnf9HGPnrpSQK6EYjt8FyDB8';
const B = '7NCJevSNj93C9TpXb3FiJqSqzjfWeJ3rUCwGFAMjiYoS';
const feeV2: FeeConfigAccount = { version: 'v2', size: 686, initialized: 1, fee_ppm: 25, bump: 255, admin: A, fee_recipient: B };

/** A deterministic byte stream (xorshift32): "random" tails that are the same on every run. */
function garbage(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('readFeeSplit', () => {
  it('given a plausible split or the default (zero tail, v1), then it is read as it is', () => {
    const split = [
      { recipient: A, ppm: 600_000 },
      { recipient: B, ppm: 400_000 },
    ];
    expect(readFeeSplit(encodeFeeSplit(feeV2, split))).toEqual({ split, problem: null });
    expect(readFeeSplit(encodeFeeConfigAccount(feeV2))).toEqual({ split: [], problem: null });
    expect(readFeeSplit(encodeFeeConfigAccount({ ...feeV2, version: 'v1', size: 72 }))).toEqual({ split: [], problem: null });
    expect(MAX_SPLIT_RECIPIENTS).toBe(17);
  });

  it('given a v2 tail of garbage bytes, then no split is read from it, and the reason says why', () => {
    let refused = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const data = encodeFeeConfigAccount(feeV2);
      data.set(garbage(seed, 686 - 72), 72);
      const read = readFeeSplit(data);
      if (read.split === null) refused++;
      else expect(read.split).toEqual([]); // a garbage count byte of 0 reads as "no split"
      if (read.problem !== null) expect(read.problem).toMatch(/fit|ppm|twice|zero/);
    }
    expect(refused).toBeGreaterThan(195);
  });

  it('given weights over 1,000,000 ppm, one recipient twice, or the zero key, then it is refused', () => {
    expect(readFeeSplit(encodeFeeSplit(feeV2, [{ recipient: A, ppm: 1_000_001 }])).problem).toMatch(/1000001 ppm is over/);
    expect(
      readFeeSplit(
        encodeFeeSplit(feeV2, [
          { recipient: A, ppm: 600_000 },
          { recipient: B, ppm: 400_001 },
        ]),
      ).problem,
    ).toMatch(/add up to 1000001/);
    expect(
      readFeeSplit(
        encodeFeeSplit(feeV2, [
          { recipient: A, ppm: 1 },
          { recipient: A, ppm: 1 },
        ]),
      ).problem,
    ).toMatch(/named twice/);
    expect(readFeeSplit(encodeFeeSplit(feeV2, [{ recipient: '11111111111111111111111111111111', ppm: 1 }])).problem).toMatch(/all-zero/);
    const tooMany = encodeFeeConfigAccount(feeV2);
    tooMany[72] = 200;
    expect(readFeeSplit(tooMany)).toEqual({ split: null, problem: expect.stringMatching(/200 recipients does not fit/) });
  });
});
