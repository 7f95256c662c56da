import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { logLengthReward } from './logLengthReward.js';

describe('logLengthReward at the float64 edges (issue 12)', () => {
  it('rejects alpha = 1e308 with n = 1e9, budget 1 (the reward would be -Infinity) with OUT_OF_RANGE naming alpha', () =>
    expectFrognanoError(() => logLengthReward(1e9, 1, 1e308), 'OUT_OF_RANGE', 'alpha', '-Infinity'));
  it('a huge alpha with n <= budget is still exactly 1 (no penalty applies)', () => {
    expect(logLengthReward(5, 10, 1e308)).toBe(1);
  });
  it('the largest finite penalty is returned, not rejected', () => {
    // alpha ln(2) just below MAX_VALUE: 1 - alpha ln 2 is finite
    const alpha = Number.MAX_VALUE / 2;
    const r = logLengthReward(2, 1, alpha);
    expect(r).toBeCloseTo(1 - alpha * Math.LN2, -300);
    expect(Number.isFinite(r)).toBe(true);
  });
  it('n = 1e308 with budget 1 and alpha 1: 1 - ln(1e308) = -708.2', () => {
    expect(logLengthReward(1e308, 1, 1)).toBeCloseTo(1 - 308 * Math.LN10, 10);
  });
  it('budget = 1e308 with n = 1e308: no penalty', () => {
    expect(logLengthReward(1e308, 1e308, 0.1)).toBe(1);
  });
  it('property: any finite valid input gives a finite reward <= 1 or OUT_OF_RANGE naming alpha', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.nat(), fc.constantFrom(1e9, 1e308, 2 ** 53, Number.MAX_VALUE)),
        fc.oneof(fc.double({ min: 1, max: 1e308, noNaN: true }), fc.constantFrom(1, Number.MAX_VALUE)),
        fc.oneof(fc.double({ min: 0, max: 1e308, noNaN: true }), fc.constantFrom(0, 1e308, Number.MAX_VALUE, 5e-324)),
        (n, budget, alpha) => {
          let r: number;
          try {
            r = logLengthReward(n, budget, alpha);
          } catch (e) {
            expect((e as { code?: string }).code).toBe('OUT_OF_RANGE');
            expect((e as { field?: string }).field).toBe('alpha');
            return;
          }
          expect(Number.isFinite(r)).toBe(true);
          expect(r).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 300, seed: 1205 },
    );
  });
});
