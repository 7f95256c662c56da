import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { reciprocalRankReward } from './reciprocalRankReward.js';

describe('reciprocalRankReward', () => {
  it('is 1 when the top-ranked candidate passes', () => {
    expect(reciprocalRankReward([1, 0, 2], [false, true, false])).toBe(1);
  });
  it('is 1/r* for the best-ranked passing candidate', () => {
    expect(reciprocalRankReward([2, 1, 0], [false, true, false])).toBe(0.5);
    expect(reciprocalRankReward([2, 0, 1], [false, true, false])).toBe(1 / 3);
    expect(reciprocalRankReward([3, 2, 1, 0], [true, false, false, false])).toBe(0.25);
    // two passing candidates: the better-ranked one counts
    expect(reciprocalRankReward([0, 3, 2, 1], [false, true, true, false])).toBe(1 / 3);
  });
  it('is 0 when nothing passes', () => {
    expect(reciprocalRankReward([0, 1], [false, false])).toBe(0);
  });
  it('is 1 whenever every candidate passes (property) and in (0, 1] when any passes', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 9 }), fc.integer(), (passed, seed) => {
        const ranking = passed.map((_, i) => i);
        // deterministic shuffle from the seed
        let s = seed >>> 0;
        for (let i = ranking.length - 1; i > 0; i--) {
          s = (s * 1664525 + 1013904223) >>> 0;
          const j = s % (i + 1);
          [ranking[i], ranking[j]] = [ranking[j]!, ranking[i]!];
        }
        const r = reciprocalRankReward(ranking, passed);
        if (passed.every(Boolean)) expect(r).toBe(1);
        if (passed.some(Boolean)) {
          expect(r).toBeGreaterThan(0);
          expect(1 / r).toBe(ranking.findIndex((i) => passed[i]) + 1);
        } else expect(r).toBe(0);
      }),
    );
  });
  it('rejects no candidates', () => expectFrognanoError(() => reciprocalRankReward([], []), 'EMPTY_INPUT', 'passed'));
  it('rejects a length mismatch', () =>
    expectFrognanoError(() => reciprocalRankReward([0, 1], [true, false, true]), 'LENGTH_MISMATCH', 'reciprocalRankReward', 'ranking'));
  it('rejects a repeated index', () => expectFrognanoError(() => reciprocalRankReward([0, 0, 1], [true, false, true]), 'OUT_OF_RANGE', 'ranking[1]', 'repeats'));
  it('rejects an index out of range', () => expectFrognanoError(() => reciprocalRankReward([0, 3, 1], [true, false, true]), 'OUT_OF_RANGE', 'ranking[1]'));
  it('rejects a fractional index', () => expectFrognanoError(() => reciprocalRankReward([0.5, 1], [true, false]), 'OUT_OF_RANGE', 'ranking[0]'));
  it('rejects a NaN index', () => expectFrognanoError(() => reciprocalRankReward([NaN, 1], [true, false]), 'OUT_OF_RANGE', 'ranking[0]'));
  it('rejects a non-number index', () => expectFrognanoError(() => reciprocalRankReward(['0', 1] as never, [true, false]), 'INVALID_TYPE', 'ranking[0]'));
  it('rejects a non-boolean passed entry', () => expectFrognanoError(() => reciprocalRankReward([0, 1], [true, 1] as never), 'INVALID_TYPE', 'passed[1]'));
  it('rejects a non-array ranking', () => expectFrognanoError(() => reciprocalRankReward('01' as never, [true, false]), 'INVALID_TYPE', 'ranking'));
});
