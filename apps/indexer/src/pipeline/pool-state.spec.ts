import { adoptOracle, UNKNOWN_STATE, type TrackedState } from './pool-state';

/** The oracle read at the end of a cycle, against the updates the cycle already applied. */

const read = (sequence: string, midpriceQ32: string, spreadFactorQ32: string, lastUpdateSlot: string) => ({
  quotingAuthority: 'Q',
  sequence,
  midpriceQ32,
  spreadFactorQ32,
  lastUpdateSlot,
});

describe('adoptOracle', () => {
  it('given nothing known yet, then the read is the state in effect', () => {
    const t: TrackedState = { ...UNKNOWN_STATE };
    adoptOracle(t, read('7', '100', '4294967296', '50'));
    expect(t).toMatchObject({ midpriceQ32: '100', spreadFactorQ32: '4294967296', oracleSequence: '7', oracleSlot: 50 });
  });

  it('given a read older than the last update applied (lower sequence), then it is ignored', () => {
    const t: TrackedState = { ...UNKNOWN_STATE, midpriceQ32: '120', spreadFactorQ32: '1', oracleSequence: '9', oracleSlot: 60 };
    adoptOracle(t, read('8', '100', '2', '55'));
    expect(t).toMatchObject({ midpriceQ32: '120', spreadFactorQ32: '1', oracleSequence: '9', oracleSlot: 60 });
  });

  it('given the same sequence written again later (equal sequences are accepted on chain), then the older read is ignored and the newer adopted', () => {
    const t: TrackedState = { ...UNKNOWN_STATE, midpriceQ32: '120', spreadFactorQ32: '1', oracleSequence: '9', oracleSlot: 60 };
    adoptOracle(t, read('9', '110', '1', '58'));
    expect(t.midpriceQ32).toBe('120');
    adoptOracle(t, read('9', '130', '1', '61'));
    expect(t).toMatchObject({ midpriceQ32: '130', oracleSlot: 61 });
  });

  it('given a newer read, then it is adopted; a zero midprice (never valid) keeps the known one', () => {
    const t: TrackedState = { ...UNKNOWN_STATE, midpriceQ32: '120', spreadFactorQ32: '1', oracleSequence: '9', oracleSlot: 60 };
    adoptOracle(t, read('10', '0', '3', '70'));
    expect(t).toMatchObject({ midpriceQ32: '120', spreadFactorQ32: '3', oracleSequence: '10' });
  });
});
