import { parseHadronEvent } from '@hadron/contracts';
import { generateEvents } from './event-generator';

describe('generated event stream', () => {
  const events = [...generateEvents({ events: 20_000, poolsPerCluster: 6, seed: 7 })];

  it('is valid against the v1 contracts, with unique ids', () => {
    for (const e of events) {
      const r = parseHadronEvent(JSON.stringify(e));
      if (!r.ok) throw new Error(`${e.id}: ${r.reason}`);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('covers every event type, both clusters, missing block times and swaps without a midprice', () => {
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['PoolDiscovered', 'PoolConfigChanged', 'MidpriceUpdated', 'SwapExecuted', 'VaultBalancesChanged', 'FeeSplitChanged']));
    expect(new Set(events.map((e) => e.cluster))).toEqual(new Set(['mainnet-beta', 'devnet']));
    expect(events.some((e) => e.blockTime === null)).toBe(true);
    expect(events.some((e) => e.type === 'SwapExecuted' && e.data.midpriceQ32 === null)).toBe(true);
    expect(events.some((e) => e.type === 'SwapExecuted' && e.data.feeSplit !== null)).toBe(true);
  });

  it('is deterministic', () => {
    expect([...generateEvents({ events: 500, poolsPerCluster: 6, seed: 7 })]).toEqual(events.slice(0, 500));
  });
});
