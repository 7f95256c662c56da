import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thresholdScore } from './thresholdScore.js';

describe('thresholdScore at the float64 edges (issue 12)', () => {
  it('scores near 1.8e308 whose sum overflows: the finite mean, not Infinity', () => {
    const r = thresholdScore([{ ut: [1.7e308, 1.7e308, -1e308], eval: [1, 1, 1] }], 0);
    expect(r.count).toBe(3);
    expect(r.mean! / ((1.7e308 / 3) * 2 - 1e308 / 3) - 1).toBeLessThan(1e-15);
  });
  it('MAX_VALUE scores average to MAX_VALUE, never past it', () => {
    const M = Number.MAX_VALUE;
    expect(thresholdScore([{ ut: [M, M, M], eval: [9, 9, 9] }], 8).mean).toBe(M);
    expect(thresholdScore([{ ut: [-M, -M], eval: [9, 9] }], 8).mean).toBe(-M);
  });
  it('no accepted sample: mean null (documented), count 0', () => {
    expect(thresholdScore([{ ut: [1e308], eval: [0] }], 1e308)).toEqual({ mean: null, count: 0 });
  });
  it('property: the mean is finite and between the smallest and largest accepted score', () => {
    const score = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324));
    fc.assert(
      fc.property(fc.array(fc.tuple(score, fc.double({ min: -10, max: 10, noNaN: true })), { minLength: 1, maxLength: 12 }), fc.double({ min: -10, max: 10, noNaN: true }), (rows, theta) => {
        const r = thresholdScore([{ ut: rows.map((x) => x[0]), eval: rows.map((x) => x[1]) }], theta);
        const acc = rows.filter((x) => x[1] >= theta).map((x) => x[0]);
        expect(r.count).toBe(acc.length);
        if (acc.length === 0) {
          expect(r.mean).toBeNull();
          return;
        }
        expect(Number.isFinite(r.mean)).toBe(true);
        expect(r.mean!).toBeGreaterThanOrEqual(Math.min(...acc) - Math.abs(Math.min(...acc)) * 1e-15);
        expect(r.mean!).toBeLessThanOrEqual(Math.max(...acc) + Math.abs(Math.max(...acc)) * 1e-15);
      }),
      { numRuns: 300, seed: 1207 },
    );
  });
});
