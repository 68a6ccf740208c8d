import { describe, expect, it } from 'vitest';
import { comparableText, jaroWinkler } from '../../../src/reports/matching/jaro-winkler.js';

/*
 * Expected figures are other implementations' published ones: Winkler's examples as Python's jellyfish tests them,
 * and cases of DuckDB's, another SQL engine's and go-textdistance's tests (Japanese among them). Left out: that SQL
 * engine's cases whose common prefix it counts in UTF-8 bytes, not characters; and where they all differ from us on
 * purpose: they call two empty texts alike (1), we call an empty description like nothing.
 */
describe('Jaro-Winkler similarity', () => {
  it.each([
    ['martha', 'marhta', 0.961111],
    ['dwayne', 'duane', 0.84],
    ['dixon', 'dicksonx', 0.813333],
  ])('%s ~ %s = %f (jellyfish)', (a, b, expected) => {
    expect(jaroWinkler(a, b)).toBeCloseTo(expected, 6);
    expect(jaroWinkler(b, a)).toBeCloseTo(expected, 6);
  });

  it.each([
    ['CRATE', 'TRACE', 0.733333],
    ['DwAyNE', 'DuANE', 0.84],
    ['0', '0', 1],
    ['0', '00', 0.85],
    ['hello', 'hello', 1],
    ['hello', 'helo', 0.953333],
    ['あいうえおか', 'あいうおえか', 0.961111],
  ])('%j ~ %j = %f (SQL engines, go-textdistance)', (a, b, expected) => {
    expect(jaroWinkler(a, b)).toBeCloseTo(expected, 6);
  });

  it('compares code points, and an empty text is like nothing, not even another empty one', () => {
    expect(jaroWinkler('café 😀', 'café 😀')).toBe(1);
    expect(jaroWinkler('', '')).toBe(0);
  });

  it('compares descriptions lower-cased with whitespace collapsed', () => {
    expect(comparableText('  FASTER  PAYMENT\tFROM\nACME ')).toBe('faster payment from acme');
    expect(comparableText(null)).toBe('');
  });
});
