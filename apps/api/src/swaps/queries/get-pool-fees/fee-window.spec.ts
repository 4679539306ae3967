import { planFeeWindow } from './fee-window';

describe('planFeeWindow', () => {
  const H = 3600;
  it('24h: whole hours from rollups, both partial hours raw, end inclusive', () => {
    const end = 100 * H + 125;
    const p = planFeeWindow('24h', end);
    expect(p).toEqual({
      start: 76 * H + 125,
      end,
      hours: { from: 77 * H, to: 100 * H },
      edges: [
        { from: 76 * H + 125, to: 77 * H },
        { from: 100 * H, to: end + 1 },
      ],
    });
  });

  it('1h not aligned: all raw, no whole hour', () => {
    const p = planFeeWindow('1h', 100 * H + 125);
    expect(p.hours).toEqual({ from: 0, to: 0 });
    expect(p.edges).toEqual([
      { from: 99 * H + 125, to: 100 * H + 126 },
      { from: 0, to: 0 },
    ]);
  });

  it('all starts at 0', () => {
    const p = planFeeWindow('all', 100 * H + 5);
    expect(p.start).toBe(0);
    expect(p.hours).toEqual({ from: 0, to: 100 * H });
    expect(p.edges[0]).toEqual({ from: 100 * H, to: 100 * H + 6 });
  });
});
