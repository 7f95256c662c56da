import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { passAtK } from './passAtK.js';

/** Exact 1 - C(n-c,k)/C(n,k) with BigInt, then one division in float64. */
function exactPassAtK(n: number, c: number, k: number): number {
  const choose = (a: number, b: number): bigint => {
    if (b < 0 || b > a) return 0n;
    let r = 1n;
    for (let i = 1; i <= b; i++) r = (r * BigInt(a - b + i)) / BigInt(i);
    return r;
  };
  const num = choose(n - c, k);
  const den = choose(n, k);
  // 1 - num/den = (den - num)/den
  return Number(den - num) / Number(den);
}

describe('passAtK', () => {
  it('pass@1 is c / n', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15);
    expect(passAtK(7, 0, 1)).toBe(0);
    expect(passAtK(7, 7, 1)).toBe(1);
  });
  it('hand-computed values', () => {
    // 1 - C(2,2)/C(4,2) = 1 - 1/6
    expect(passAtK(4, 2, 2)).toBeCloseTo(5 / 6, 15);
    // 1 - C(7,3)/C(10,3) = 1 - 35/120
    expect(passAtK(10, 3, 3)).toBeCloseTo(1 - 35 / 120, 15);
    // 1 - C(5,2)/C(8,2) = 1 - 10/28
    expect(passAtK(8, 3, 2)).toBeCloseTo(1 - 10 / 28, 15);
  });
  it('is 1 when n - c < k and 0 when c = 0', () => {
    expect(passAtK(8, 5, 4)).toBe(1);
    expect(passAtK(8, 1, 8)).toBe(1);
    expect(passAtK(8, 0, 8)).toBe(0);
    expect(passAtK(1, 1, 1)).toBe(1);
  });
  it('equals the exact binomial ratio for small n (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))),
        ([n, c, k]) => {
          expect(passAtK(n, c, k)).toBeCloseTo(exactPassAtK(n, c, k), 12);
        },
      ),
    );
  });
  it('lies in [0, 1] and is non-decreasing in k and in c (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n }))),
        ([n, c, k]) => {
          const v = passAtK(n, c, k);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
          if (k < n) expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(v - 1e-15);
          if (c < n) expect(passAtK(n, c + 1, k)).toBeGreaterThanOrEqual(v - 1e-15);
        },
      ),
    );
  });
  it('is stable for large n', () => {
    const v = passAtK(1000, 1, 1);
    expect(v).toBeCloseTo(0.001, 15);
    expect(passAtK(100000, 50000, 100)).toBeCloseTo(1, 12);
  });
  it('rejects NaN n', () => expectFrognanoError(() => passAtK(NaN, 1, 1), 'NON_FINITE', 'passAtK', 'n'));
  it('rejects Infinity c', () => expectFrognanoError(() => passAtK(5, Infinity, 1), 'NON_FINITE', 'c'));
  it('rejects a string k', () => expectFrognanoError(() => passAtK(5, 1, '1' as unknown as number), 'INVALID_TYPE', 'k'));
  it('rejects n = 0', () => expectFrognanoError(() => passAtK(0, 0, 1), 'OUT_OF_RANGE', 'n'));
  it('rejects a fractional n', () => expectFrognanoError(() => passAtK(2.5, 1, 1), 'OUT_OF_RANGE', 'n'));
  it('rejects c < 0', () => expectFrognanoError(() => passAtK(5, -1, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects c > n', () => expectFrognanoError(() => passAtK(5, 6, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects a fractional c', () => expectFrognanoError(() => passAtK(5, 1.5, 1), 'OUT_OF_RANGE', 'c'));
  it('rejects k = 0', () => expectFrognanoError(() => passAtK(5, 1, 0), 'OUT_OF_RANGE', 'k'));
  it('rejects k > n', () => expectFrognanoError(() => passAtK(5, 1, 6), 'OUT_OF_RANGE', 'k'));
  it('rejects a fractional k', () => expectFrognanoError(() => passAtK(5, 1, 1.5), 'OUT_OF_RANGE', 'k'));
});
