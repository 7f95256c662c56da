import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finiteMean } from './finiteMean.js';

describe('finiteMean', () => {
  it('is the plain left-to-right mean when the sum is finite', () => {
    expect(finiteMean([1, 2, 3, 4])).toBe(2.5);
    expect(finiteMean([0.1, 0.2, 0.3])).toBe((0.1 + 0.2 + 0.3) / 3);
    expect(finiteMean([5, 1, 2, 3, 9], 1, 4)).toBe(2);
  });
  it('does not overflow near ±MAX_VALUE', () => {
    const M = Number.MAX_VALUE;
    expect(finiteMean([1e308, 1e308, 0, 0.5])).toBeCloseTo(5e307, -293);
    expect(finiteMean([M, M])).toBe(M);
    expect(finiteMean([-M, -M, -M])).toBe(-M);
    expect(finiteMean(Array(50).fill(1.5e307))).toBeCloseTo(1.5e307, -293);
    expect(finiteMean([-M, M, M, -M, M])).toBeCloseTo(M / 5, -292);
  });
  it('property: finite and within [min, max] (to rounding) for any finite values', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 60 }), (xs) => {
        const m = finiteMean(xs);
        expect(Number.isFinite(m)).toBe(true);
        const lo = Math.min(...xs);
        const hi = Math.max(...xs);
        // the plain path may round one or two ulps past the range ([0.1, 0.1, 0.1] -> 0.10000000000000002)
        expect(m).toBeGreaterThanOrEqual(lo - 1e-12 * Math.abs(lo) - 5e-324);
        expect(m).toBeLessThanOrEqual(hi + 1e-12 * Math.abs(hi) + 5e-324);
      }),
    );
  });
});
