import { parseHadronEvent } from '@hadron/contracts';
import { generateEvents, POISON_DECODER } from './event-generator';

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
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set(['PoolDiscovered', 'PoolConfigChanged', 'MidpriceUpdated', 'SwapExecuted', 'VaultBalancesChanged', 'FeeSplitChanged']),
    );
    expect(new Set(events.map((e) => e.cluster))).toEqual(new Set(['mainnet-beta', 'devnet']));
    expect(events.some((e) => e.blockTime === null)).toBe(true);
    expect(events.some((e) => e.type === 'SwapExecuted' && e.data.midpriceQ32 === null)).toBe(true);
    expect(events.some((e) => e.type === 'SwapExecuted' && e.data.feeSplit !== null)).toBe(true);
  });

  it('is deterministic', () => {
    expect([...generateEvents({ events: 500, poolsPerCluster: 6, seed: 7 })]).toEqual(events.slice(0, 500));
  });

  it('reads most pools ahead of their history, reports After values (known, unknown, absent) and sends some config snapshots late', () => {
    const discovered = events.filter((e) => e.type === 'PoolDiscovered');
    const firstAfter = discovered.map((d) => events.find((e) => e.pool === d.pool && e.cluster === d.cluster && e.type !== 'PoolDiscovered')!);
    expect(discovered.filter((d, i) => d.slot > firstAfter[i].slot).length).toBeGreaterThan(discovered.length / 2);
    const updates = events.filter((e) => e.type === 'MidpriceUpdated');
    expect(updates.some((e) => e.data.spreadFactorAfterQ32 !== undefined && e.data.spreadFactorAfterQ32 !== null)).toBe(true);
    expect(updates.some((e) => e.data.spreadFactorAfterQ32 === null)).toBe(true);
    expect(updates.some((e) => !('spreadFactorAfterQ32' in e.data))).toBe(true);
    const lastSlot = new Map<string, number>();
    let late = 0;
    for (const e of events) {
      const key = `${e.cluster} ${e.pool}`;
      if (e.type === 'PoolConfigChanged' && e.slot < (lastSlot.get(key) ?? 0)) late++;
      if (e.type !== 'PoolDiscovered') lastSlot.set(key, Math.max(lastSlot.get(key) ?? 0, e.slot));
    }
    expect(late).toBeGreaterThan(0);
  });

  it('with duplicates and poison: exact copies of earlier events, and events every projection refuses', () => {
    const mixed = [...generateEvents({ events: 120_000, poolsPerCluster: 6, seed: 7, duplicates: true, poison: true })];
    const byId = new Map<string, string>();
    let copies = 0;
    for (const e of mixed) {
      const json = JSON.stringify(e);
      const seen = byId.get(e.id);
      if (seen !== undefined) {
        expect(json).toBe(seen);
        copies++;
      } else byId.set(e.id, json);
    }
    expect(copies).toBeGreaterThan(100);
    const poison = mixed.filter((e) => e.decoderVersion === POISON_DECODER);
    expect(new Set(poison.map((e) => e.type))).toEqual(new Set(['SwapExecuted', 'MidpriceUpdated']));
    // Without them the stream is the plain one.
    expect(new Set(mixed.filter((e) => e.decoderVersion !== POISON_DECODER).map((e) => e.id)).size).toBe(120_000);
  });
});
