import { InvalidParam, parseChoice, parseInteger, parseText, parseUnixSeconds } from './query-params';

const bad = (v: unknown) => v instanceof InvalidParam;

describe('query parameter parsers', () => {
  it('integers: digits only, within bounds', () => {
    expect(parseInteger('20', 1, 100, 'm')).toBe(20);
    expect(parseInteger('007', 1, 100, 'm')).toBe(7);
    for (const v of ['0', '101', '-1', '1.5', '1e2', ' 1', '+1', '0x10', '', 'abc', ['1', '2'], '99999999999999999']) {
      expect(bad(parseInteger(v, 1, 100, 'm'))).toBe(true);
    }
    expect((parseInteger('x', 1, 2, 'page must be…') as InvalidParam).message).toBe('page must be…');
  });

  it('unix seconds: 0..9999999999; milliseconds, negatives, floats refused', () => {
    expect(parseUnixSeconds('0', 'm')).toBe(0);
    expect(parseUnixSeconds('1763800000', 'm')).toBe(1763800000);
    expect(parseUnixSeconds('9999999999', 'm')).toBe(9999999999);
    for (const v of ['1763800000000', '-5', '1.5', '1e9', 'now', '', ['1', '2']]) expect(bad(parseUnixSeconds(v, 'm'))).toBe(true);
  });

  it('choices: exact, single', () => {
    expect(parseChoice('devnet', ['mainnet-beta', 'devnet'], 'm')).toBe('devnet');
    for (const v of ['Devnet', 'testnet', '', ['devnet', 'devnet']]) expect(bad(parseChoice(v, ['mainnet-beta', 'devnet'], 'm'))).toBe(true);
  });

  it('text: trimmed, empty = absent, repeated = 400', () => {
    expect(parseText(' sol ', 'query')).toBe('sol');
    expect(parseText('  ', 'query')).toBeUndefined();
    expect((parseText(['a', 'b'], 'query') as InvalidParam).message).toBe('query must be given at most once');
  });
});
