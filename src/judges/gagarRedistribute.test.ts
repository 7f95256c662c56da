import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { gagarRedistribute, gagarRedistributeDetailed } from './gagarRedistribute.js';

const closeAll = (got: number[], want: number[], digits = 12) => {
  expect(got).toHaveLength(want.length);
  want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, digits));
};

/** Sparse array with holes at the failures, exactly the slides' `[1.0, 0.2, -, -]`. */
const SLIDE_COEFS = [1.0, 0.2, , ,] as (number | undefined)[];

describe('gagarRedistribute: worked examples', () => {
  it('GAGAR slides p.6, exact formula (lambdaMax = Infinity): lambda = 1.667, [0.833, 0.167, -0.5, -0.5]', () => {
    const d = gagarRedistributeDetailed([1, 1, 0, 0], SLIDE_COEFS, { lambdaMax: Infinity });
    expect(SLIDE_COEFS).toHaveLength(4);
    // lambda = 1 / (0.5 * 1.0 + 0.5 * 0.2) = 1 / 0.6
    expect(d.lambda).toBeCloseTo(5 / 3, 12);
    expect(d.lambdaUsed).toBe(d.lambda);
    expect(d.capped).toBe(false);
    expect(d.kept).toBe(true);
    expect(d.shift).toBe(0);
    closeAll(d.advantages, [5 / 6, 1 / 6, -0.5, -0.5]);
    // positive mass conserved: 0.833 + 0.167 = 1 = 0.5 + 0.5
    expect(d.advantages[0]! + d.advantages[1]!).toBeCloseTo(1, 12);
    expect(gagarRedistribute([1, 1, 0, 0], [1.0, 0.2, null, null], { lambdaMax: Infinity })).toEqual(d.advantages);
  });
  it('the same group with the default lambdaMax = 1.5 is capped (hand-computed)', () => {
    // B = [1.5*1.0*0.5, 1.5*0.2*0.5, -0.5, -0.5] = [0.75, 0.15, -0.5, -0.5]; mean(B) = -0.1/4 = -0.025
    const d = gagarRedistributeDetailed([1, 1, 0, 0], SLIDE_COEFS);
    expect(d.capped).toBe(true);
    expect(d.lambda).toBeCloseTo(5 / 3, 12);
    expect(d.lambdaUsed).toBe(1.5);
    expect(d.shift).toBeCloseTo(-0.025, 12);
    closeAll(d.advantages, [0.775, 0.175, -0.475, -0.475]);
    closeAll(gagarRedistribute([1, 1, 0, 0], [1.0, 0.2, NaN, NaN]), [0.775, 0.175, -0.475, -0.475]);
  });
  it('lambda exactly at lambdaMax takes the conserving branch; just above it is capped', () => {
    // R = [1,0,0,0]: mean 0.25, A = [0.75, -0.25 x3], c_0 = 0.5 -> lambda = 0.75 / 0.375 = 2 exactly
    const at = gagarRedistributeDetailed([1, 0, 0, 0], [0.5, 0, 0, 0], { lambdaMax: 2 });
    expect(at.lambda).toBe(2);
    expect(at.capped).toBe(false);
    expect(at.advantages).toEqual([0.75, -0.25, -0.25, -0.25]);
    // lambdaMax 1.5: B = [1.5*0.5*0.75, -0.25 x3] = [0.5625, -0.25, -0.25, -0.25]; mean = -0.1875/4 = -0.046875
    const below = gagarRedistributeDetailed([1, 0, 0, 0], [0.5, 0, 0, 0], { lambdaMax: 1.5 });
    expect(below.capped).toBe(true);
    closeAll(below.advantages, [0.609375, -0.203125, -0.203125, -0.203125]);
  });
  it('all coefficients 1 -> lambda = 1, plain R - mean', () => {
    const d = gagarRedistributeDetailed([1, 0, 1, 1, 0], [1, 1, 1, 1, 1]);
    expect(d.lambda).toBe(1);
    expect(d.capped).toBe(false);
    closeAll(d.advantages, [0.4, -0.6, 0.4, 0.4, -0.6]);
  });
  it('all rewards equal -> zeros, kept = false, coefficients not read', () => {
    expect(gagarRedistribute([1, 1, 1], [null, null, null])).toEqual([0, 0, 0]);
    expect(gagarRedistribute([0, 0], [0, -5])).toEqual([0, 0]);
    // 0.1 * 3 / 3 is not exactly 0.1 in float64; equality is tested on the rewards, not on R - mean
    const d = gagarRedistributeDetailed([0.1, 0.1, 0.1], [1, 1, 1]);
    expect(d).toEqual({ advantages: [0, 0, 0], kept: false, lambda: 1, lambdaUsed: 1, capped: false, shift: 0 });
    expect(gagarRedistribute([1], [0.5])).toEqual([0]);
  });
  it('general (non-binary) rewards: S = members above the mean (hand-computed)', () => {
    // R = [1, 0.5, 0, 0.5]: mean 0.5, A = [0.5, 0, -0.5, 0], S = {0}; c_0 = 0.5 -> lambda = 2 > 1.5
    // B = [0.375, 0, -0.5, 0], mean(B) = -0.03125
    const d = gagarRedistributeDetailed([1, 0.5, 0, 0.5], [0.5, null, null, null]);
    expect(d.lambda).toBe(2);
    closeAll(d.advantages, [0.40625, 0.03125, -0.46875, 0.03125]);
    // uncapped: the single success keeps its advantage (lambda c A = A)
    expect(gagarRedistribute([1, 0.5, 0, 0.5], [0.5, null, null, null], { lambdaMax: 2 })).toEqual([0.5, 0, -0.5, 0]);
  });
  it('extreme but finite magnitudes stay finite (subnormal rewards, tiny coefficients)', () => {
    // mean underflows to 0; the single success keeps its advantage (lambda c = 1)
    expect(gagarRedistribute([0, 0, 5e-324], [null, null, 1e-6], { lambdaMax: Infinity })).toEqual([0, 0, 5e-324]);
    // 1 / c overflows: lambda is reported as Infinity, the conserving advantages are still exact
    const d = gagarRedistributeDetailed([1, 0], [1e-320, null], { lambdaMax: Infinity });
    expect(d.lambda).toBe(Infinity);
    expect(d.advantages).toEqual([0.5, -0.5]);
    // capped: B = [1.5e-320 * 0.5, -0.5] -> minus its mean (~ -0.25)
    closeAll(gagarRedistribute([1, 0], [1e-320, null]), [0.25, -0.25]);
  });
  it('does not mutate its inputs and accepts typed arrays', () => {
    const r = [1, 1, 0, 0];
    const c = [1, 0.2, 0, 0];
    gagarRedistribute(r, c);
    expect(r).toEqual([1, 1, 0, 0]);
    expect(c).toEqual([1, 0.2, 0, 0]);
    closeAll(gagarRedistribute(new Float64Array(r), new Float64Array(c), { lambdaMax: Infinity }), [5 / 6, 1 / 6, -0.5, -0.5]);
  });
});

const binaryGroup = fc
  .integer({ min: 2, max: 32 })
  .chain((n) =>
    fc.tuple(
      fc.array(fc.constantFrom(0, 1), { minLength: n, maxLength: n }),
      fc.array(fc.double({ min: 0.01, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
    ),
  )
  .filter(([r]) => r.some((x) => x !== r[0]));

/** General rewards on a 0.001 grid: advantages far from float64's subnormal range, where positivity can round away. */
const generalGroup = fc
  .integer({ min: 1, max: 32 })
  .chain((n) =>
    fc.tuple(
      fc.array(
        fc.integer({ min: -100_000, max: 100_000 }).map((k) => k / 1000),
        { minLength: n, maxLength: n },
      ),
      fc.array(fc.double({ min: 1e-6, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
    ),
  );

/** Any finite doubles, subnormals included, and any coefficients in (0, 1]. */
const anyGroup = fc
  .integer({ min: 1, max: 32 })
  .chain((n) =>
    fc.tuple(
      fc.array(fc.double({ min: -1e300, max: 1e300, noNaN: true }), { minLength: n, maxLength: n }),
      fc.array(fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
    ),
  );

describe('gagarRedistribute: invariants (property)', () => {
  it('conserving branch: positive mass kept, failures unchanged, group sum 0', () => {
    fc.assert(
      fc.property(fc.oneof(binaryGroup, generalGroup), ([r, c]) => {
        const d = gagarRedistributeDetailed(r, c, { lambdaMax: Infinity });
        expect(d.capped).toBe(false);
        const mean = r.reduce((a, b) => a + b, 0) / r.length;
        const allEqual = r.every((x) => x === r[0]);
        let posBefore = 0;
        let posAfter = 0;
        let total = 0;
        let scale = 0;
        r.forEach((x, i) => {
          const a = allEqual ? 0 : x - mean;
          const v = d.advantages[i]!;
          total += v;
          scale += Math.abs(v);
          if (a > 0) {
            posBefore += a;
            posAfter += v;
            expect(v).toBeGreaterThan(0);
          } else {
            expect(v).toBe(a);
          }
        });
        expect(Math.abs(posAfter - posBefore)).toBeLessThanOrEqual(1e-12 * Math.max(1, posBefore));
        expect(Math.abs(total)).toBeLessThanOrEqual(1e-12 * Math.max(1, scale));
      }),
    );
  });
  it('capped branch: success advantages ordered by c_i, successes above failures, group sum 0', () => {
    let cappedRuns = 0;
    fc.assert(
      fc.property(binaryGroup, fc.double({ min: 1, max: 1.5, noNaN: true }), ([r, c], lambdaMax) => {
        const d = gagarRedistributeDetailed(r, c, { lambdaMax });
        if (!d.capped) return;
        cappedRuns++;
        expect(d.lambda).toBeGreaterThan(lambdaMax);
        expect(d.lambdaUsed).toBe(lambdaMax);
        const total = d.advantages.reduce((a, b) => a + b, 0);
        expect(Math.abs(total)).toBeLessThanOrEqual(1e-12);
        for (let i = 0; i < r.length; i++) {
          for (let j = 0; j < r.length; j++) {
            if (r[i] === 1 && r[j] === 1 && c[i]! <= c[j]!) expect(d.advantages[i]).toBeLessThanOrEqual(d.advantages[j]!);
            if (r[i] === 1 && r[j] === 0) expect(d.advantages[i]).toBeGreaterThan(d.advantages[j]!);
          }
        }
      }),
    );
    expect(cappedRuns).toBeGreaterThan(10);
  });
  it('output length = input length, never NaN, whatever lambdaMax', () => {
    fc.assert(
      fc.property(
        fc.oneof(binaryGroup, generalGroup, anyGroup),
        fc.oneof(fc.constant(Infinity), fc.double({ min: 1, max: 100, noNaN: true })),
        ([r, c], lambdaMax) => {
          const out = gagarRedistribute(r, c, { lambdaMax });
          expect(out).toHaveLength(r.length);
          for (const v of out) expect(Number.isFinite(v)).toBe(true);
        },
      ),
    );
  });
});

describe('gagarRedistribute: bad input', () => {
  it('rejects a NaN reward', () => expectFrognanoError(() => gagarRedistribute([1, NaN, 0], [1, 1, 1]), 'NON_FINITE', 'rewards[1]'));
  it('rejects a string reward', () =>
    expectFrognanoError(() => gagarRedistribute([1, '0' as unknown as number], [1, 1]), 'INVALID_TYPE', 'rewards[1]'));
  it('rejects non-array rewards', () => expectFrognanoError(() => gagarRedistribute(1 as never, [1]), 'INVALID_TYPE', 'rewards'));
  it('rejects an empty group', () => expectFrognanoError(() => gagarRedistribute([], []), 'EMPTY_INPUT', 'rewards'));
  it('rejects non-array coefficients', () => expectFrognanoError(() => gagarRedistribute([1, 0], 0.5 as never), 'INVALID_TYPE', 'coefficients'));
  it('rejects a coefficients length mismatch', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0, 0], [1, 0]), 'LENGTH_MISMATCH', 'coefficients', '2', '3'));
  it('rejects a zero success coefficient', () =>
    expectFrognanoError(() => gagarRedistribute([1, 1, 0], [1, 0, 1]), 'OUT_OF_RANGE', 'coefficients[1]'));
  it('rejects a negative success coefficient', () =>
    expectFrognanoError(() => gagarRedistribute([0, 1], [null, -0.3]), 'OUT_OF_RANGE', 'coefficients[1]'));
  it('rejects a success coefficient above 1', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0], [1.2, null]), 'OUT_OF_RANGE', 'coefficients[0]'));
  it('rejects a NaN success coefficient', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0], [NaN, 1]), 'NON_FINITE', 'coefficients[0]'));
  it('rejects a missing success coefficient', () =>
    expectFrognanoError(() => gagarRedistribute([0, 1], [1, null]), 'INVALID_TYPE', 'coefficients[1]'));
  it('rejects a non-number failure entry', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0, 0], [1, null, '-' as never]), 'INVALID_TYPE', 'coefficients[2]'));
  it('rejects lambdaMax < 1', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0], [1, 1], { lambdaMax: 0.9 }), 'OUT_OF_RANGE', 'opts.lambdaMax'));
  it('rejects lambdaMax = NaN', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0], [1, 1], { lambdaMax: NaN }), 'NON_FINITE', 'opts.lambdaMax'));
  it('rejects a string lambdaMax', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0], [1, 1], { lambdaMax: '2' as never }), 'INVALID_TYPE', 'opts.lambdaMax'));
  it('rejects an unknown option', () =>
    expectFrognanoError(() => gagarRedistribute([1, 0], [1, 1], { lambdaMaxx: 2 } as never), 'INVALID_TYPE', 'lambdaMaxx'));
  it('rejects rewards whose mean overflows float64 instead of returning Infinity/NaN', () =>
    expectFrognanoError(() => gagarRedistribute([1e308, 1e308, 0], [1, 1, 1]), 'OUT_OF_RANGE', 'rewards', 'float64'));
  it('names the detailed variant in its messages', () =>
    expectFrognanoError(() => gagarRedistributeDetailed([1, 0], [0, 1]), 'OUT_OF_RANGE', 'gagarRedistributeDetailed', 'coefficients[0]'));
});
