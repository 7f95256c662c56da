import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { RUBRIC_DIMENSIONS, type RubricDimension, type RubricVerdict } from './rubricItems.js';
import { rubricScore } from './rubricScore.js';

const items = [
  { dimension: 'functional', verdict: 'pass' },
  { dimension: 'content', verdict: 'fail' },
] as { dimension: RubricDimension; verdict: RubricVerdict }[];

describe('rubricScore at the float64 edges (issue 12)', () => {
  it('weights of 1e308 (their sum overflows): the ratio still gives 50, not NaN', () => {
    expect(rubricScore(items, { weights: { functional: 1e308, content: 1e308 } }).score).toBe(50);
  });
  it('weights of 5e-324 (their products underflow): 50, not 0', () => {
    expect(rubricScore(items, { weights: { functional: 5e-324, content: 5e-324 } }).score).toBe(50);
  });
  it('weights of MAX_VALUE and 5e-324 side by side: the tiny one is negligible', () => {
    expect(rubricScore(items, { weights: { functional: Number.MAX_VALUE, content: 5e-324 } }).score).toBe(100);
  });
  it('ordinary weights give bit-for-bit the unscaled result (the power-of-two scaling is exact)', () => {
    const w = RUBRIC_DIMENSION_WEIGHTS_LOCAL;
    expect(rubricScore(items).score).toBe(100 * ((w.functional * 1 + w.content * 0) / (w.functional + w.content)));
  });
  it('all items passed is exactly 100, not 100.00000000000001 (ux only, weight 0.093)', () => {
    expect(rubricScore([{ dimension: 'ux', verdict: 'pass' }, { dimension: 'layout', verdict: 'pass' }], { weights: { layout: 0 } }).score).toBe(100);
  });
  it('rejects an Infinity weight with NON_FINITE', () => expectFrognanoError(() => rubricScore(items, { weights: { functional: Infinity } }), 'NON_FINITE', 'opts.weights.functional'));
  it('rejects weights that are 0 on every present dimension (0 denominator) with OUT_OF_RANGE', () =>
    expectFrognanoError(() => rubricScore(items, { weights: { functional: 0, content: 0 } }), 'OUT_OF_RANGE', 'opts.weights'));
  it('property: any finite non-negative weights give a score in [0, 100] (never 100.00000000000001) or OUT_OF_RANGE (all zero)', () => {
    const weight = fc.oneof(fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true }), fc.constantFrom(0, 5e-324, Number.MAX_VALUE, 1e-300));
    fc.assert(
      fc.property(
        fc.array(fc.record({ dimension: fc.constantFrom(...RUBRIC_DIMENSIONS), verdict: fc.constantFrom<RubricVerdict>('pass', 'partial', 'fail') }), { minLength: 1, maxLength: 12 }),
        fc.dictionary(fc.constantFrom(...RUBRIC_DIMENSIONS), weight),
        (its, weights) => {
          let s: number;
          try {
            s = rubricScore(its, { weights }).score;
          } catch (e) {
            expect((e as { code?: string }).code).toBe('OUT_OF_RANGE');
            return;
          }
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(100);
        },
      ),
      { numRuns: 300, seed: 1208 },
    );
  });
});

const RUBRIC_DIMENSION_WEIGHTS_LOCAL = { functional: 0.377, content: 0.19 };
