import { planFeeWindow } from './fee-window';

describe('planFeeWindow', () => {
  const D = 86_400;

  it('24h: from end − 24 h through end inclusive, each edge with its UTC day', () => {
    const end = 100 * D + 125;
    expect(planFeeWindow('24h', end)).toEqual({ start: 99 * D + 125, end, lo: { at: 99 * D + 125, day: 99 * D }, hi: { at: end + 1, day: 100 * D } });
  });

  it('the last second of a day: the upper point is the next midnight, in the next day', () => {
    expect(planFeeWindow('1h', 10 * D - 1).hi).toEqual({ at: 10 * D, day: 10 * D });
  });

  it('all starts at 0 (swaps without block time, ts 0, included); a window never starts before 0', () => {
    expect(planFeeWindow('all', 5 * D + 7)).toMatchObject({ start: 0, lo: { at: 0, day: 0 } });
    expect(planFeeWindow('30d', 3600).start).toBe(0);
  });
});
