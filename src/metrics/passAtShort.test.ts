import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { passAtShort, shortestIndex } from './passAtShort.js';

describe('passAtShort / shortestIndex', () => {
  it('takes the shortest candidate', () => {
    const c = [
      { passed: false, length: 30 },
      { passed: true, length: 12 },
      { passed: false, length: 50 },
    ];
    expect(shortestIndex(c)).toBe(1);
    expect(passAtShort(c)).toBe(true);
  });
  it('is false when the shortest failed even if a longer one passed', () => {
    const c = [
      { passed: true, length: 30 },
      { passed: false, length: 3 },
    ];
    expect(passAtShort(c)).toBe(false);
  });
  it('takes the first on ties', () => {
    const c = [
      { passed: true, length: 9 },
      { passed: false, length: 5 },
      { passed: true, length: 5 },
    ];
    expect(shortestIndex(c)).toBe(1);
    expect(passAtShort(c)).toBe(false);
    expect(passAtShort([c[2]!, c[1]!])).toBe(true);
  });
  it('one candidate decides alone; length 0 is allowed', () => {
    expect(passAtShort([{ passed: true, length: 0 }])).toBe(true);
    expect(shortestIndex([{ passed: false, length: 0 }])).toBe(0);
  });
  it('does not mutate its input', () => {
    const c = [
      { passed: true, length: 2 },
      { passed: false, length: 1 },
    ];
    const copy = JSON.parse(JSON.stringify(c));
    passAtShort(c);
    expect(c).toEqual(copy);
  });
  it('rejects no candidates', () => expectFrognanoError(() => passAtShort([]), 'EMPTY_INPUT', 'passAtShort', 'candidates'));
  it('rejects a non-array', () => expectFrognanoError(() => passAtShort(null as never), 'INVALID_TYPE', 'candidates'));
  it('rejects NaN length', () =>
    expectFrognanoError(() => passAtShort([{ passed: true, length: 1 }, { passed: true, length: NaN }]), 'NON_FINITE', 'candidates[1].length'));
  it('rejects a negative length', () =>
    expectFrognanoError(() => shortestIndex([{ passed: true, length: -1 }]), 'OUT_OF_RANGE', 'shortestIndex', 'candidates[0].length'));
  it('rejects a non-boolean passed', () =>
    expectFrognanoError(() => passAtShort([{ passed: 1, length: 1 }] as never), 'INVALID_TYPE', 'candidates[0].passed'));
  it('ignores extra fields on a candidate', () => {
    expect(passAtShort([{ passed: true, length: 4, id: 'a' }, { passed: false, length: 9, id: 'b' }] as never)).toBe(true);
  });
  it('rejects a candidate without length', () => expectFrognanoError(() => passAtShort([{ passed: true }] as never), 'INVALID_TYPE', 'candidates[0].length'));
});
