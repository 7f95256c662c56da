import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { GAGAR_DIMENSIONS, GAGAR_WEIGHTS } from './gagarDimensions.js';
import { GagarScoresSchema, gagarWeightedScore } from './gagarWeightedScore.js';

const s = (approach: number, precision: number, minimality: number, sideEffects: number, consistency: number) => ({
  approach,
  precision,
  minimality,
  sideEffects,
  consistency,
});

describe('gagarWeightedScore', () => {
  it('weights 0.30 / 0.25 / 0.20 / 0.15 / 0.10 (hand-computed)', () => {
    // 1.5 + 1.0 + 0.6 + 0.75 + 0.4
    expect(gagarWeightedScore(s(5, 4, 3, 5, 4))).toBeCloseTo(4.25, 12);
    // 0.3 + 0.5 + 0.6 + 0.6 + 0.5
    expect(gagarWeightedScore(s(1, 2, 3, 4, 5))).toBeCloseTo(2.5, 12);
  });
  it('isolates each weight', () => {
    expect(gagarWeightedScore(s(1, 0, 0, 0, 0))).toBeCloseTo(0.3, 15);
    expect(gagarWeightedScore(s(0, 1, 0, 0, 0))).toBeCloseTo(0.25, 15);
    expect(gagarWeightedScore(s(0, 0, 1, 0, 0))).toBeCloseTo(0.2, 15);
    expect(gagarWeightedScore(s(0, 0, 0, 1, 0))).toBeCloseTo(0.15, 15);
    expect(gagarWeightedScore(s(0, 0, 0, 0, 1))).toBeCloseTo(0.1, 15);
  });
  it('the weights sum to 1, so equal scores map to themselves (property)', () => {
    const total = Object.values(GAGAR_WEIGHTS).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 15);
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (x) => {
        expect(gagarWeightedScore(s(x, x, x, x, x))).toBeCloseTo(x, 6);
      }),
    );
  });
  it('is bit for bit the written formula, signed zeros included (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }), fc.constantFrom(0, -0)), { minLength: 5, maxLength: 5 }), ([a, p, m, e, c]) => {
        const written = 0.3 * a! + 0.25 * p! + 0.2 * m! + 0.15 * e! + 0.1 * c!;
        expect(Object.is(gagarWeightedScore(s(a!, p!, m!, e!, c!)), written)).toBe(true);
      }),
    );
    expect(Object.is(gagarWeightedScore(s(-0, -0, -0, -0, -0)), -0)).toBe(true);
  });
  it('one definition: the dimensions are the keys of GAGAR_WEIGHTS, in weight order, and the schema takes exactly them', () => {
    expect(GAGAR_DIMENSIONS).toEqual(['approach', 'precision', 'minimality', 'sideEffects', 'consistency']);
    expect(GAGAR_DIMENSIONS.map((d) => GAGAR_WEIGHTS[d])).toEqual([0.3, 0.25, 0.2, 0.15, 0.1]);
    expect(Object.keys(GagarScoresSchema.shape)).toEqual([...GAGAR_DIMENSIONS]);
  });
  it('accepts scores outside 1..5 without clamping', () => {
    expect(gagarWeightedScore(s(10, -2, 0, 0, 0))).toBeCloseTo(3 - 0.5, 12);
  });
  it('rejects NaN', () => expectFrognanoError(() => gagarWeightedScore(s(5, NaN, 3, 5, 4)), 'NON_FINITE', 'scores.precision'));
  it('rejects Infinity', () => expectFrognanoError(() => gagarWeightedScore(s(5, 4, 3, Infinity, 4)), 'NON_FINITE', 'scores.sideEffects'));
  it('rejects a string score', () =>
    expectFrognanoError(() => gagarWeightedScore(s('5' as unknown as number, 4, 3, 5, 4)), 'INVALID_TYPE', 'scores.approach'));
  it('rejects a missing field', () => {
    const { consistency: _, ...rest } = s(5, 4, 3, 5, 4);
    expectFrognanoError(() => gagarWeightedScore(rest as never), 'INVALID_TYPE', 'scores.consistency');
  });
  it('rejects an unknown field (the slides call consistency s_style)', () =>
    expectFrognanoError(() => gagarWeightedScore({ ...s(5, 4, 3, 5, 4), style: 4 } as never), 'INVALID_TYPE', 'style'));
});
