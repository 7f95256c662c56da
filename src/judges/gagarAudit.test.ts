import { describe, expect, it } from 'vitest';
import { gagarAudit } from './gagarAudit.js';

const scores = (v: number) => ({ approach: v, precision: v, minimality: v, sideEffects: v, consistency: v });

/** Issue 12 (fuzz): gagarWeightedScore takes any finite scores, so the audit's means must not overflow. */
describe('gagarAudit: finite means at the float64 edge', () => {
  it('50 groups with sideEffects 1e308 give a finite byLabel.base.weightedScore', () => {
    const groups = Array.from({ length: 50 }, () => [
      { tier: 'T1' as const, rank: 1, scores: scores(5), label: 'gagar' },
      { tier: 'T2' as const, rank: 1, scores: { ...scores(3), sideEffects: 1e308 }, label: 'base' },
    ]);
    const r = gagarAudit(groups);
    const w = 0.3 * 3 + 0.25 * 3 + 0.2 * 3 + 0.15 * 1e308 + 0.1 * 3;
    expect(r.byLabel.base!.weightedScore).toBeCloseTo(w, -292);
    expect(Number.isFinite(r.byLabel.base!.weightedScore)).toBe(true);
    expect(r.byLabel.gagar!.weightedScore).toBeCloseTo(5, 12);
    expect(r.weightedScore).toBeCloseTo(w / 2, -292);
    expect(Number.isFinite(r.weightedScore)).toBe(true);
  });
  it('scores at ±MAX_VALUE keep every mean within the range of the weighted scores', () => {
    const M = Number.MAX_VALUE;
    const groups = [
      [
        { tier: 'T1' as const, rank: 1, scores: scores(M), label: 'a' },
        { tier: 'T1' as const, rank: 2, scores: scores(M), label: 'a' },
      ],
      [{ tier: 'T2' as const, rank: 1, scores: scores(-M), label: 'b' }],
    ];
    const r = gagarAudit(groups);
    expect(Number.isFinite(r.byLabel.a!.weightedScore)).toBe(true);
    expect(r.byLabel.a!.weightedScore).toBeGreaterThan(1e308);
    expect(Number.isFinite(r.byLabel.b!.weightedScore)).toBe(true);
    expect(Number.isFinite(r.weightedScore)).toBe(true);
  });
  it('judge-scale scores give the plain means (unchanged)', () => {
    const r = gagarAudit([
      [
        { tier: 'T1', rank: 1, scores: scores(5), label: 'g' },
        { tier: 'T2', rank: 1, scores: scores(3), label: 'b' },
      ],
      [{ tier: 'T1', rank: 1, scores: scores(4), label: 'g' }],
    ]);
    expect(r.weightedScore).toBe((5 + 3 + 4) / 3);
    expect(r.byLabel.g!.weightedScore).toBe(4.5);
  });
});
