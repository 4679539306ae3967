import { readFreshness } from './freshness';

describe('readFreshness', () => {
  it('reads the three freshness headers of a response as numbers', () => {
    const response = new Response('{}', { headers: { 'X-Indexed-Slot': '312456789', 'X-Indexed-Time': '1764003725', 'X-Data-Lag-Seconds': '1.5' } });
    expect(readFreshness(response)).toEqual({ slot: 312_456_789, time: 1_764_003_725, lagSeconds: 1.5 });
  });

  it('gives null for a header that is absent or not a number (unknown freshness)', () => {
    expect(readFreshness(new Response('{}'))).toEqual({ slot: null, time: null, lagSeconds: null });
    expect(readFreshness(new Response('{}', { headers: { 'X-Indexed-Slot': '', 'X-Data-Lag-Seconds': 'soon' } }))).toEqual({
      slot: null,
      time: null,
      lagSeconds: null,
    });
  });
});
