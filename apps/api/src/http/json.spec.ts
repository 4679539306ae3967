import { toJson } from './json';

describe('toJson', () => {
  it('matches JSON.stringify for plain values', () => {
    const v = { a: 1, b: 'x"\n\u2028', c: [1, null, true, { d: -0.5 }], e: undefined, f: 1e21, g: 0.1, h: [undefined, NaN, Infinity] };
    expect(toJson(v)).toBe(JSON.stringify(v));
  });

  it('writes bigint with exact digits', () => {
    expect(toJson({ n: 18446744073709551615n, m: [-12n], z: 0n })).toBe('{"n":18446744073709551615,"m":[-12],"z":0}');
  });

  it('strings that look like the marker stay strings', () => {
    const tricky = { name: '\u0000n123', other: '\\u0000abc:5', nul: '\u0000' };
    expect(JSON.parse(toJson(tricky))).toEqual(tricky);
  });
});
