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
          const s = a.reduce((x, y) => x + y, 0);
          expect(Math.abs(s)).toBeLessThan(1e-9);
          if (kept[i]) {
            const ss = a.reduce((x, y) => x + y * y, 0) / (a.length - 1);
            // all-but-equal groups can have std ~ 1e-16; skip those degenerate cases
            const spread = Math.max(...groups[i]!) - Math.min(...groups[i]!);
            if (spread > 1e-6) expect(ss).toBeCloseTo(1, 9);
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
