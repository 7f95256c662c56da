/** The numbers quoted in docs/judges.md, computed by the library. */
import { describe, expect, it } from 'vitest';
import { gagarCoefficients } from './gagarCoefficients.js';
import { gagarRedistribute } from './gagarRedistribute.js';
import { hirsTokenPolarity } from './hirsTokenPolarity.js';
import { rubricRankingAgreement } from './rubricRankingAgreement.js';
import { rubricScore } from './rubricScore.js';
import { taskQualityMetrics } from './taskQualityMetrics.js';

describe('docs/judges.md', () => {
  it('GAGAR on the bundled group', () => {
    const c = gagarCoefficients([{ tier: 'T1', rank: 1 }, { tier: 'T3', rank: 1 }, { tier: 'T2', rank: 1 }]);
    expect(c).toEqual([1, 0.2, 0.85]);
    const a = gagarRedistribute([1, 1, 0, 0, 1], [1, 0.2, null, null, 0.85]);
    [0.585, 0.117, -0.6, -0.6, 0.498].forEach((x, i) => expect(a[i]).toBeCloseTo(x, 3));
    expect(1.2 / (0.4 * 2.05)).toBeCloseTo(1.463, 3);
  });
  it('task quality metrics', () => {
    expect(taskQualityMetrics([true, true, false, false], [true, false, true, false])).toMatchObject({ precision: 0.5, recall: 0.5, f1: 0.5 });
  });
  it('rubric score and ranking agreement', () => {
    const s = rubricScore([
      { dimension: 'functional', verdict: 'pass' },
      { dimension: 'functional', verdict: 'fail' },
      { dimension: 'visual', verdict: 'pass' },
    ]).score;
    expect(s).toBeCloseTo(63.04, 2);
    const r = rubricRankingAgreement({ 'max-default': [71, 64, 58], 'max-strict': [62, 51, 47], 'plus-default': [70, 58, 60] });
    expect(r.tau[0]![1]).toBe(1);
    expect(r.tau[0]![2]).toBeCloseTo(1 / 3, 12);
  });
  it('HIRS spans', () => {
    const msgs = ['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant'].map((role) => ({ role: role as 'user' }));
    const r = hirsTokenPolarity(msgs, [{ turn: 0, record: { polarity: 'negative' } }], [5, 4, 3, 6, 2, 4, 3]);
    expect(r.spans).toEqual([
      { start: 9, end: 12, polarity: 'negative' },
      { start: 18, end: 20, polarity: 'negative' },
    ]);
  });
});
