import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { gagarCoefficients, type GagarCandidate } from './gagarCoefficients.js';

describe('gagarCoefficients', () => {
  it('T1: best tie group 1.0, every later T1 tie group 0.9', () => {
    expect(
      gagarCoefficients([
        { tier: 'T1', rank: 2 },
        { tier: 'T1', rank: 1 },
        { tier: 'T1', rank: 1 },
        { tier: 'T1', rank: 3 },
      ]),
    ).toEqual([0.9, 1, 1, 0.9]);
  });
  it('T2 with one tie group -> 0.85', () => {
    expect(gagarCoefficients([{ tier: 'T2', rank: 7 }, { tier: 'T2', rank: 7 }])).toEqual([0.85, 0.85]);
  });
  it('T2 with m groups falls linearly from 0.85 to 0.4 (m = 2, 3, 4)', () => {
    expect(gagarCoefficients([{ tier: 'T2', rank: 2 }, { tier: 'T2', rank: 1 }])).toEqual([0.4, 0.85]);
    const three = gagarCoefficients([{ tier: 'T2', rank: 1 }, { tier: 'T2', rank: 2 }, { tier: 'T2', rank: 3 }]);
    expect(three[0]).toBe(0.85);
    expect(three[1]).toBeCloseTo(0.625, 12);
    expect(three[2]).toBe(0.4);
    const four = gagarCoefficients([{ tier: 'T2', rank: 4 }, { tier: 'T2', rank: 3 }, { tier: 'T2', rank: 2 }, { tier: 'T2', rank: 1 }]);
    expect(four[3]).toBe(0.85);
    expect(four[2]).toBeCloseTo(0.7, 12);
    expect(four[1]).toBeCloseTo(0.55, 12);
    expect(four[0]).toBe(0.4);
  });
  it('ranks need not be consecutive; ties share the coefficient', () => {
    const out = gagarCoefficients([
      { tier: 'T2', rank: 10 },
      { tier: 'T2', rank: -3 },
      { tier: 'T2', rank: 10 },
      { tier: 'T2', rank: 2.5 },
    ]);
    expect(out[1]).toBe(0.85);
    expect(out[3]).toBeCloseTo(0.625, 12);
    expect(out[0]).toBe(0.4);
    expect(out[2]).toBe(0.4);
  });
  it('T3 -> 0.2 whatever the rank; tiers are independent (mixed group, doc example)', () => {
    expect(
      gagarCoefficients([
        { tier: 'T1', rank: 1 },
        { tier: 'T1', rank: 1 },
        { tier: 'T1', rank: 2 },
        { tier: 'T2', rank: 1 },
        { tier: 'T2', rank: 5 },
        { tier: 'T2', rank: 9 },
        { tier: 'T3', rank: 1 },
        { tier: 'T3', rank: 99 },
      ]),
    ).toEqual([1, 1, 0.9, 0.85, 0.625, 0.4, 0.2, 0.2]);
    // no T1 at all: the best T2 group still gets 0.85
    expect(gagarCoefficients([{ tier: 'T3', rank: 0 }, { tier: 'T2', rank: 0 }])).toEqual([0.2, 0.85]);
  });
  it('an empty list gives an empty result', () => expect(gagarCoefficients([])).toEqual([]));
  it('every coefficient lies in (0, 1], T1 >= T2 >= T3, better rank never lower (property)', () => {
    const cand = fc.record({ tier: fc.constantFrom('T1' as const, 'T2' as const, 'T3' as const), rank: fc.integer({ min: -5, max: 5 }) });
    fc.assert(
      fc.property(fc.array(cand, { maxLength: 20 }), (cs: GagarCandidate[]) => {
        const out = gagarCoefficients(cs);
        expect(out).toHaveLength(cs.length);
        const order = { T1: 0, T2: 1, T3: 2 };
        for (let i = 0; i < cs.length; i++) {
          expect(out[i]).toBeGreaterThan(0);
          expect(out[i]).toBeLessThanOrEqual(1);
          for (let j = 0; j < cs.length; j++) {
            const a = cs[i]!;
            const b = cs[j]!;
            const better = order[a.tier] < order[b.tier] || (a.tier === b.tier && a.rank <= b.rank);
            if (better) expect(out[i]).toBeGreaterThanOrEqual(out[j]!);
          }
        }
      }),
    );
  });
  it('does not mutate its input', () => {
    const cs: GagarCandidate[] = [{ tier: 'T2', rank: 2 }, { tier: 'T2', rank: 1 }];
    const copy = structuredClone(cs);
    gagarCoefficients(cs);
    expect(cs).toEqual(copy);
  });
  it('rejects an unknown tier', () =>
    expectFrognanoError(() => gagarCoefficients([{ tier: 'T1', rank: 1 }, { tier: 'T4' as never, rank: 1 }]), 'INVALID_TYPE', 'candidates[1].tier'));
  it('rejects a NaN rank', () => expectFrognanoError(() => gagarCoefficients([{ tier: 'T2', rank: NaN }]), 'NON_FINITE', 'candidates[0].rank'));
  it('rejects an infinite rank', () =>
    expectFrognanoError(() => gagarCoefficients([{ tier: 'T1', rank: 1 }, { tier: 'T1', rank: Infinity }]), 'NON_FINITE', 'candidates[1].rank'));
  it('rejects a missing rank', () => expectFrognanoError(() => gagarCoefficients([{ tier: 'T3' } as never]), 'INVALID_TYPE', 'candidates[0].rank'));
  it('rejects a non-array', () => expectFrognanoError(() => gagarCoefficients({ tier: 'T1', rank: 1 } as never), 'INVALID_TYPE', 'candidates'));
});
