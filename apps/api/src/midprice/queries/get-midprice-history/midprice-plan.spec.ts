import { bucketCount, planSampled } from './midprice-plan';

describe('planSampled', () => {
  it('1h+: whole hours, whole minutes at the edges, raw partial minutes', () => {
    // [10:00:30, 13:02:10] → raw 10:00:30–10:01, minutes 10:01–11:00, hours 11–13, minutes 13:00–13:02, raw 13:02:00–13:02:11
    const h = 3600;
    const p = planSampled('1h', 10 * h + 30, 13 * h + 130);
    expect(p.size).toBe(h);
    expect(p.hours).toEqual({ from: 11 * h, to: 13 * h });
    expect(p.minutes).toEqual([
      { from: 10 * h + 60, to: 11 * h },
      { from: 13 * h, to: 13 * h + 120 },
    ]);
    expect(p.raw).toEqual([
      { from: 10 * h + 30, to: 10 * h + 60 },
      { from: 13 * h + 120, to: 13 * h + 131 },
    ]);
  });

  it('sub-hour timeframes use minutes only', () => {
    const p = planSampled('5m', 90, 400);
    expect(p.hours).toEqual({ from: 0, to: 0 });
    expect(p.minutes[0]).toEqual({ from: 120, to: 360 });
    expect(p.raw).toEqual([
      { from: 90, to: 120 },
      { from: 360, to: 401 },
    ]);
  });

  it('counts the buckets a range touches', () => {
    expect(bucketCount(3600, 0, 3599)).toBe(1);
    expect(bucketCount(3600, 3599, 3600)).toBe(2);
    expect(bucketCount(60, 0, 86_400)).toBe(1441);
  });
});
