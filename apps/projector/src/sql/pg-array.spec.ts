import { boolArray, numberArray, textArray } from './pg-array';

describe('postgres array literals', () => {
  it('quotes and escapes text, keeps nulls', () => {
    expect(textArray(['a', 'b:1', null, 'q"x', 'b\\s', '', 'NULL'])).toBe('{"a","b:1",NULL,"q\\"x","b\\\\s","","NULL"}');
    expect(textArray([])).toBe('{}');
  });
  it('writes numbers, decimal strings and booleans as they are', () => {
    expect(numberArray([1, -2, '340282366920938463426481119284349108225', null])).toBe('{1,-2,340282366920938463426481119284349108225,NULL}');
    expect(boolArray([true, false])).toBe('{t,f}');
  });
});
