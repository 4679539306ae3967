import { fakeAddress, sampleEventStream, sampleSwap } from '../testing/sample-events';
import { parseHadronEvent } from './hadron-event';

describe('event contracts v1', () => {
  it('accepts every sample event, as JSON text and as a value', () => {
    for (const e of sampleEventStream('devnet', [fakeAddress('p1'), fakeAddress('p2')], 30)) {
      expect(parseHadronEvent(JSON.stringify(e))).toEqual({ ok: true, event: e });
      expect(parseHadronEvent(e).ok).toBe(true);
    }
  });

  it('keeps u64 amounts exact as decimal strings up to 2^64-1', () => {
    const e = sampleSwap('mainnet-beta', fakeAddress('p'), 1);
    const max = { ...e, data: { ...e.data, amountIn: '18446744073709551615' } };
    const parsed = parseHadronEvent(JSON.stringify(max));
    expect(parsed.ok && parsed.event.type === 'SwapExecuted' && parsed.event.data.amountIn).toBe('18446744073709551615');
  });

  it.each([
    ['amount above u64', (e: any) => (e.data.amountIn = '18446744073709551616'), 'data.amountIn: exceeds u64'],
    ['amount as a JS number', (e: any) => (e.data.amountIn = 1000), 'data.amountIn'],
    ['letters in an amount (refused, not thrown)', (e: any) => (e.data.amountOut = '12a'), 'data.amountOut: must be a decimal u64 string'],
    ['negative amount', (e: any) => (e.data.feeRaw = '-1'), 'data.feeRaw: must be a decimal u64 string'],
    ['unknown cluster', (e: any) => (e.cluster = 'testnet'), 'cluster'],
    ['unknown type', (e: any) => (e.type = 'SwapHappened'), 'type'],
    ['unknown version', (e: any) => (e.version = 2), 'version'],
    ['bad pool address', (e: any) => (e.pool = 'not-a-key'), 'pool: must be a base58 public key'],
  ])('rejects %s with a reason naming the field', (_name, mutate, reason) => {
    const e = JSON.parse(JSON.stringify(sampleSwap('devnet', fakeAddress('p'), 2)));
    mutate(e);
    const r = parseHadronEvent(JSON.stringify(e));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toContain(reason);
  });

  it('rejects text that is not JSON with a reason', () => {
    const r = parseHadronEvent('{"type":');
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('not JSON') });
  });
});
