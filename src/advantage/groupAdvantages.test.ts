import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { groupAdvantages } from './groupAdvantages.js';

describe('groupAdvantages', () => {
  it('standardises with the Bessel-corrected std by default', () => {
    // [1,0,0,1]: mean 0.5, sample std sqrt(1/3) = 0.57735
    const { advantages, kept } = groupAdvantages([[1, 0, 0, 1]]);
    const s = Math.sqrt(1 / 3) + 1e-6;
    expect(kept).toEqual([true]);
    expect(advantages[0]![0]).toBeCloseTo(0.5 / s, 12);
    expect(advantages[0]![1]).toBeCloseTo(-0.5 / s, 12);
  });
  it('population std divides by n', () => {
    const { advantages } = groupAdvantages([[1, 0, 0, 1]], { std: 'population', eps: 0 });
    expect(advantages[0]).toEqual([1, -1, -1, 1]);
  });
  it("scale 'none' is R - mean (GAGAR, Dr. GRPO)", () => {
    const { advantages } = groupAdvantages([[1, 1, 0, 0], [0.9, 0, 0.5]], { scale: 'none' });
    expect(advantages[0]).toEqual([0.5, 0.5, -0.5, -0.5]);
    expect(advantages[1]![0]).toBeCloseTo(0.9 - 1.4 / 3, 15);
    expect(advantages[1]![1]).toBeCloseTo(-1.4 / 3, 15);
  });
  it('drops zero-variance groups (all 0 or all 1) with zero advantages', () => {
    const { advantages, kept } = groupAdvantages([[1, 1, 1], [0, 0, 0], [0, 1, 0]]);
    expect(kept).toEqual([false, false, true]);
    expect(advantages[0]).toEqual([0, 0, 0]);
    expect(advantages[1]).toEqual([0, 0, 0]);
  });
  it('always drops a one-member group', () => {
    const { advantages, kept } = groupAdvantages([[0.7], [1, 0]]);
    expect(kept).toEqual([false, true]);
    expect(advantages[0]).toEqual([0]);
  });
  it('filters on raw outcomes through filterBy, computes on shaped rewards', () => {
    // Shaped rewards differ (length penalty) but raw outcomes are all successes -> dropped (FrogNano).
    const shaped = [[1, 0.93, 0.5], [0.8, 0, 0]];
    const raw = [[1, 1, 1], [1, 0, 0]];
    const { advantages, kept } = groupAdvantages(shaped, { filterBy: raw });
    expect(kept).toEqual([false, true]);
    expect(advantages[0]).toEqual([0, 0, 0]);
    const m = 0.8 / 3;
    const sd = Math.sqrt(((0.8 - m) ** 2 + 2 * m ** 2) / 2) + 1e-6;
    expect(advantages[1]![0]).toBeCloseTo((0.8 - m) / sd, 12);
    // Without filterBy the first group would be kept.
    expect(groupAdvantages(shaped).kept).toEqual([true, true]);
  });
  it('a kept group with equal shaped rewards and eps = 0 gives zeros, not NaN', () => {
    const { advantages, kept } = groupAdvantages([[0, 0]], { filterBy: [[1, 0]], eps: 0 });
    expect(kept).toEqual([true]);
    expect(advantages[0]).toEqual([0, 0]);
  });
  it('accepts ragged groups and typed arrays, does not mutate input', () => {
    const g = [Float64Array.from([1, 0]), [3, 1, 2]];
    const copy = g.map((r) => Array.from(r));
    const { advantages } = groupAdvantages(g, { scale: 'none' });
    expect(advantages).toEqual([[0.5, -0.5], [1, -1, 0]]);
    expect(g.map((r) => Array.from(r))).toEqual(copy);
  });
  it('property: a kept group sums to 0; std-scaled advantages have sample std ~1 (eps 0)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 2, maxLength: 16 }), { minLength: 1, maxLength: 8 }), (groups) => {
        const { advantages, kept } = groupAdvantages(groups, { eps: 0 });
        advantages.forEach((a, i) => {
          if (kept[i]) {
            const s = a.reduce((x, y) => x + y, 0);
            const ss = a.reduce((x, y) => x + y * y, 0) / (a.length - 1);
            // all-but-equal groups ([5, 5, 5 + 1e-12]) have a std near the rounding of the
            // mean, so their standardized values carry that rounding / std: skip them
            const spread = Math.max(...groups[i]!) - Math.min(...groups[i]!);
            if (spread > 1e-6) {
              expect(Math.abs(s)).toBeLessThan(1e-9);
              expect(ss).toBeCloseTo(1, 9);
            }
          } else expect(a.every((x) => x === 0)).toBe(true);
        });
      }),
    );
  });
  it('property: order within a group is preserved', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 2, maxLength: 12 }), (r) => {
        const a = groupAdvantages([r]).advantages[0]!;
        for (let i = 0; i < r.length; i++) for (let j = 0; j < r.length; j++) if (r[i]! < r[j]!) expect(a[i]!).toBeLessThanOrEqual(a[j]!);
      }),
    );
  });

  it('rejects NaN', () => expectFrognanoError(() => groupAdvantages([[1, 0], [0, NaN]]), 'NON_FINITE', 'groups[1][1]'));
  it('rejects Infinity', () => expectFrognanoError(() => groupAdvantages([[Infinity, 0]]), 'NON_FINITE', 'groups[0][0]'));
  it('rejects NaN in filterBy', () => expectFrognanoError(() => groupAdvantages([[1, 0]], { filterBy: [[1, NaN]] }), 'NON_FINITE', 'opts.filterBy[0][1]'));
  it('rejects no groups', () => expectFrognanoError(() => groupAdvantages([]), 'EMPTY_INPUT', 'groups'));
  it('rejects an empty group', () => expectFrognanoError(() => groupAdvantages([[1, 0], []]), 'EMPTY_INPUT', 'groups[1]'));
  it('rejects a filterBy with another number of groups', () =>
    expectFrognanoError(() => groupAdvantages([[1, 0]], { filterBy: [[1, 0], [0, 1]] }), 'LENGTH_MISMATCH', 'opts.filterBy'));
  it('rejects a filterBy row of another length', () =>
    expectFrognanoError(() => groupAdvantages([[1, 0], [1, 0]], { filterBy: [[1, 0], [0, 1, 1]] }), 'LENGTH_MISMATCH', 'opts.filterBy[1]'));
  it('rejects eps < 0', () => expectFrognanoError(() => groupAdvantages([[1, 0]], { eps: -1 }), 'OUT_OF_RANGE', 'opts.eps'));
  it('rejects an unknown scale', () => expectFrognanoError(() => groupAdvantages([[1, 0]], { scale: 'max' as never }), 'INVALID_TYPE', 'opts.scale'));
  it('rejects an unknown std', () => expectFrognanoError(() => groupAdvantages([[1, 0]], { std: 'bessel' as never }), 'INVALID_TYPE', 'opts.std'));
  it('rejects a non-array group', () => expectFrognanoError(() => groupAdvantages([5 as never]), 'INVALID_TYPE', 'groups[0]'));
  it('rejects a string reward', () => expectFrognanoError(() => groupAdvantages([[1, '0' as never]]), 'INVALID_TYPE', 'groups[0][1]'));
});

describe('groupAdvantages at the float64 edges (issue 12)', () => {
  const S = Math.SQRT1_2;
  it('[[1.7e308, 1.7e308, 0]]: finite (the mean no longer overflows to NaN)', () => {
    const { advantages, kept } = groupAdvantages([[1.7e308, 1.7e308, 0]]);
    expect(kept).toEqual([true]);
    // y = [1, 1, 0]: mean 2/3, sample std sqrt(1/3): A = [1/sqrt(3), 1/sqrt(3), -2/sqrt(3)]
    expect(advantages[0]![0]).toBeCloseTo(1 / Math.sqrt(3), 12);
    expect(advantages[0]![1]).toBeCloseTo(1 / Math.sqrt(3), 12);
    expect(advantages[0]![2]).toBeCloseTo(-2 / Math.sqrt(3), 12);
    expect(JSON.parse(JSON.stringify(advantages))).toEqual(advantages);
  });
  it('[[1e200, 0]] is [0.7071, -0.7071], not [0, 0] (the variance no longer overflows)', () => {
    const { advantages, kept } = groupAdvantages([[1e200, 0]]);
    expect(kept).toEqual([true]);
    expect(advantages[0]![0]).toBeCloseTo(S, 12);
    expect(advantages[0]![1]).toBeCloseTo(-S, 12);
  });
  it('[[1e-200, 0]] with eps = 0 is [0.7071, -0.7071] (the variance no longer underflows)', () => {
    const a = groupAdvantages([[1e-200, 0]], { eps: 0 }).advantages[0]!;
    expect(a[0]).toBeCloseTo(S, 12);
    expect(a[1]).toBeCloseTo(-S, 12);
  });
  it('subnormal rewards with eps = 1e-6: (R - mean) / (std + eps), not flushed to 0', () => {
    const a = groupAdvantages([[5e-324, 0]]).advantages[0]!;
    // (R - mean) = ±2.5e-324, std ~ 3.5e-324, eps 1e-6: A = ±2.47e-318 (a subnormal)
    expect(a[0]).toBeGreaterThan(2.4e-318);
    expect(a[0]).toBeLessThan(2.5e-318);
    expect(a[1]).toBe(-a[0]!);
  });
  it("scale 'none' keeps huge centred rewards finite", () => {
    expect(groupAdvantages([[1.7e308, -1.7e308]], { scale: 'none' }).advantages[0]).toEqual([1.7e308, -1.7e308]);
    expect(groupAdvantages([[1e300, 0]], { scale: 'none' }).advantages[0]).toEqual([5e299, -5e299]);
  });
  it("rejects with OUT_OF_RANGE a scale 'none' centred reward beyond float64", () =>
    expectFrognanoError(() => groupAdvantages([[1.7e308, -1.7e308, -1.7e308]], { scale: 'none' }), 'OUT_OF_RANGE', 'groups[0][0]'));
  it('property: outputs are finite for any finite rewards (including 1e308 and 5e-324)', () => {
    const reward = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -5e-324, 0, -0, 2 ** 53),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(reward, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom<'std' | 'none'>('std', 'none'),
        fc.constantFrom<'sample' | 'population'>('sample', 'population'),
        fc.constantFrom(0, 1e-6, 1e300, 5e-324),
        (groups, scale, std, eps) => {
          let r;
          try {
            r = groupAdvantages(groups, { scale, std, eps });
          } catch (e) {
            // only scale 'none' may refuse, and only for a centred reward beyond float64
            expect(scale).toBe('none');
            expect((e as { code?: string }).code).toBe('OUT_OF_RANGE');
            return;
          }
          r.advantages.forEach((row, i) => {
            expect(row).toHaveLength(groups[i]!.length);
            for (const a of row) expect(Number.isFinite(a)).toBe(true);
          });
        },
      ),
      { numRuns: 300, seed: 1201 },
    );
  });
  it('property: std-scaled advantages (eps = 0) are invariant to scaling the rewards by c > 0, c = 1e300 and 1e-300 included', () => {
    fc.assert(
      fc.property(
        // rewards on a 1e-3 grid in [-1e3, 1e3]: c * R stays a normal float64 for every c below
        fc.array(fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }).map((x) => x / 1000), { minLength: 2, maxLength: 10 }), { minLength: 1, maxLength: 4 }),
        fc.oneof(fc.constantFrom(1e300, 1e-300, 3, 0.1, 2 ** -1000, 7e299), fc.double({ min: 1e-290, max: 1e290, noNaN: true })),
        fc.constantFrom<'sample' | 'population'>('sample', 'population'),
        (groups, c, std) => {
          const base = groupAdvantages(groups, { eps: 0, std });
          const scaled = groupAdvantages(groups.map((g) => g.map((x) => x * c)), { eps: 0, std });
          expect(scaled.kept).toEqual(base.kept);
          base.advantages.forEach((row, i) => {
            row.forEach((a, j) => {
              const b = scaled.advantages[i]![j]!;
              expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(a)));
            });
          });
        },
      ),
      { numRuns: 300, seed: 1202 },
    );
  });
  it("property: scale 'none' advantages scale linearly with c (within 1e-9 relative)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 2, maxLength: 10 }),
        fc.constantFrom(1e300, 1e-300, 0.5, 1e10),
        (g, c) => {
          const a = groupAdvantages([g], { scale: 'none' }).advantages[0]!;
          const b = groupAdvantages([g.map((x) => x * c)], { scale: 'none' }).advantages[0]!;
          a.forEach((x, j) => expect(Math.abs(b[j]! / c - x)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(x))));
        },
      ),
      { numRuns: 200, seed: 1203 },
    );
  });
});
